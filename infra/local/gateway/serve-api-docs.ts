/**
 * The local gateway's two helper pages beside the API (infra/local/README.md), both without a key
 * and outside the rate limit, because they are not API operations: `GET /openapi.json`, the OpenAPI
 * document, and `GET /docs`, an interactive reference rendered by Swagger UI. Swagger UI's browser
 * bundle and stylesheet are served from the `swagger-ui-dist` package and configured to fetch
 * nothing from anywhere else (no validator badge, no fonts), so the page works offline, and its
 * "Try it out" calls this gateway.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { commonHeaders } from '#shared/http/response-headers';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_PATH } from '#shared/openapi/build-openapi-document';

const DOCS_PATH = '/docs';
const ASSETS_PATH = '/docs/assets';
const INIT_SCRIPT_PATH = `${ASSETS_PATH}/init.js`;

/** The files of swagger-ui-dist the page loads, with their types; nothing else of the package is served. */
const SWAGGER_UI_ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  // The package's page stylesheet: body margin and background, as on Swagger's own page.
  'index.css': 'text/css; charset=utf-8',
  // Without it the browser asks the gateway for /favicon.ico, which is an unknown route.
  'favicon-32x32.png': 'image/png',
};

/**
 * Swagger UI's options (https://swagger.io/docs/open-source-tools/swagger-ui/usage/configuration/).
 * The default BaseLayout has no "Explore" bar, so the page shows this document and no other.
 */
const swaggerUiOptions = {
  url: OPENAPI_DOCUMENT_PATH,
  dom_id: '#swagger-ui',
  // Otherwise every load sends the document to validator.swagger.io for a badge.
  validatorUrl: null,
  // Otherwise ?url= or ?configUrl= in a link could load another document into this page.
  queryConfigEnabled: false,
  // The page is for calling the local API: parameters are editable and Execute is there at once.
  tryItOutEnabled: true,
  displayRequestDuration: true,
  deepLinking: true,
  // The key given to Authorize stays in the page's memory, never in localStorage.
  persistAuthorization: false,
};

/** A served file rather than an inline script, so the page's CSP can stay `script-src 'self'`. */
const initScript = `// Served by infra/local/gateway/serve-api-docs.ts: starts Swagger UI on this gateway's OpenAPI document.
window.ui = SwaggerUIBundle(${JSON.stringify(swaggerUiOptions)});
`;

/** Only this origin: a request elsewhere is refused by the browser. */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // swagger-ui.css draws its icons as data: SVGs.
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const docsPage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>CXM API reference</title>
    <link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png">
    <link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
    <link rel="stylesheet" href="${ASSETS_PATH}/index.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${INIT_SCRIPT_PATH}"></script>
  </body>
</html>
`;

/**
 * A file of swagger-ui-dist, read on first use (2 MB that a run without a browser never needs) and
 * located through Node's resolution rather than a node_modules path. Resolving late also lets the
 * gateway start without the package; a failed read is forgotten, so an `npm install` fixes it live.
 */
function swaggerUiFile(name: string): () => Promise<Buffer> {
  let read: Promise<Buffer> | undefined;
  return () =>
    (read ??= Promise.resolve()
      .then(() => readFile(fileURLToPath(new URL(name, import.meta.resolve('swagger-ui-dist')))))
      .catch((error: unknown) => {
        read = undefined;
        throw error;
      }));
}

interface Page {
  contentType: string;
  headers?: Record<string, string>;
  body: () => Promise<Buffer>;
}

/** Answers the helper pages; returns false for any other request, which the gateway then takes. */
export function createApiDocs(): (req: IncomingMessage, res: ServerResponse) => boolean {
  let document: Buffer | undefined;
  const pages: Record<string, Page> = {
    [OPENAPI_DOCUMENT_PATH]: {
      contentType: 'application/json; charset=utf-8',
      // Relative to the page's origin: "Try it out" in the reference calls this very gateway.
      body: async () =>
        (document ??= Buffer.from(
          JSON.stringify(
            buildOpenApiDocument({
              servers: [{ url: '/', description: 'local: this npm start gateway', 'x-internal': true }],
            }),
          ),
        )),
    },
    [DOCS_PATH]: {
      contentType: 'text/html; charset=utf-8',
      headers: { 'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY },
      body: async () => Buffer.from(docsPage),
    },
    [INIT_SCRIPT_PATH]: {
      contentType: 'text/javascript; charset=utf-8',
      body: async () => Buffer.from(initScript),
    },
    ...Object.fromEntries(
      Object.entries(SWAGGER_UI_ASSETS).map(([name, contentType]) => [
        `${ASSETS_PATH}/${name}`,
        { contentType, body: swaggerUiFile(name) },
      ]),
    ),
  };

  return (req, res) => {
    const page = req.method === 'GET' ? pages[(req.url ?? '/').split('?')[0]!] : undefined;
    if (!page) return false;
    const requestId = randomUUID();
    page.body().then(
      (body) => {
        res.writeHead(200, {
          ...commonHeaders(requestId),
          'Content-Type': page.contentType,
          ...page.headers,
          'Content-Length': body.length,
        });
        res.end(body);
      },
      () => {
        const body = JSON.stringify({
          code: 'NotFound',
          message: 'The reference page needs the swagger-ui-dist package; run npm install.',
        });
        res.writeHead(404, { ...commonHeaders(requestId), 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      },
    );
    return true;
  };
}
