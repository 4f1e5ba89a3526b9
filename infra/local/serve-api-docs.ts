/**
 * The local gateway's two helper pages beside the API (DESIGN section 5), both without a key and
 * outside the rate limit, because they are not API operations: `GET /openapi.json`, the OpenAPI
 * document, and `GET /docs`, an interactive reference rendered by Scalar. Scalar's browser bundle
 * is served from node_modules and configured to fetch nothing from anywhere else (no fonts, no
 * telemetry, no request proxy, no hosted agent), so the page works offline.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { commonHeaders } from '#shared/http/response-headers';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_PATH } from '#shared/openapi';

const DOCS_PATH = '/docs';
const DOCS_SCRIPT_PATH = '/docs/assets/standalone.js';

/** Scalar's standalone browser build, located through the package rather than a node_modules path. */
const scalarScript = fileURLToPath(new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference')));

/** Scalar's options: everything that would reach the internet is off (https://github.com/scalar/scalar, configuration). */
const scalarConfiguration = {
  telemetry: false,
  // Its Share and Deploy menus lead to Scalar's hosted services.
  showDeveloperTools: 'never',
  withDefaultFonts: false,
  proxyUrl: '',
  agent: { disabled: true },
  mcp: { disabled: true },
  // Nine operations fit on one page: show every tag's operations in the sidebar at once.
  defaultOpenAllTags: true,
};

/** Only this origin, and inline styles (Scalar injects its stylesheet): a request elsewhere is refused by the browser. */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeAttribute = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const docsPage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>CXM API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="${OPENAPI_DOCUMENT_PATH}" data-configuration="${escapeAttribute(JSON.stringify(scalarConfiguration))}"></script>
    <script src="${DOCS_SCRIPT_PATH}"></script>
  </body>
</html>
`;

interface Page {
  contentType: string;
  headers?: Record<string, string>;
  body: () => Promise<Buffer>;
}

/** Answers the helper pages; returns false for any other request, which the gateway then takes. */
export function createApiDocs(): (req: IncomingMessage, res: ServerResponse) => boolean {
  let document: Buffer | undefined;
  let script: Promise<Buffer> | undefined;
  const pages: Record<string, Page> = {
    [OPENAPI_DOCUMENT_PATH]: {
      contentType: 'application/json; charset=utf-8',
      // Relative to the page's origin: "Test request" in the reference calls this very gateway.
      body: async () =>
        (document ??= Buffer.from(JSON.stringify(buildOpenApiDocument({ servers: [{ url: '/', description: 'local: this npm start gateway', 'x-internal': true }] })))),
    },
    [DOCS_PATH]: {
      contentType: 'text/html; charset=utf-8',
      headers: { 'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY },
      body: async () => Buffer.from(docsPage),
    },
    [DOCS_SCRIPT_PATH]: {
      contentType: 'text/javascript; charset=utf-8',
      // Read on first use: 4 MB that a run without a browser never needs.
      body: () => (script ??= readFile(scalarScript)),
    },
  };

  return (req, res) => {
    const page = req.method === 'GET' ? pages[(req.url ?? '/').split('?')[0]!] : undefined;
    if (!page) return false;
    const requestId = randomUUID();
    page.body().then(
      (body) => {
        res.writeHead(200, { ...commonHeaders(requestId), 'Content-Type': page.contentType, ...page.headers, 'Content-Length': body.length });
        res.end(body);
      },
      () => {
        script = undefined;
        const body = JSON.stringify({ code: 'NotFound', message: 'The reference page needs @scalar/api-reference; run npm install.' });
        res.writeHead(404, { ...commonHeaders(requestId), 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      },
    );
    return true;
  };
}
