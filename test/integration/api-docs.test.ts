/**
 * The local gateway's helper pages (infra/local/README.md): the OpenAPI document at /openapi.json
 * and the Swagger UI reference at /docs, without a key, outside the rate limit, with every asset
 * served locally from swagger-ui-dist.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '#shared/api/route-table';
import { startTestApi, type TestApi } from '#test/support/test-api';

let api: TestApi;

beforeAll(async () => {
  // A rate limit of one request: the helper pages must not spend it.
  api = await startTestApi({ rateLimit: { rate: 0.001, burst: 1 } });
});
afterAll(() => api.close());

interface Operation {
  operationId: string;
}

describe('GET /openapi.json', () => {
  it('is the OpenAPI 3.1 document with every operation of the route table, without a key, with the common headers', async () => {
    const response = await fetch(`${api.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const document = (await response.json()) as {
      openapi: string;
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, Operation>>;
    };
    expect(document.openapi).toMatch(/^3\.1\./);
    const operationIds = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(operationIds).toEqual(expect.arrayContaining(routes.map((route) => route.id)));
    // "Try it" in the reference calls the gateway that served the page.
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('is not rate limited', async () => {
    for (let i = 0; i < 5; i++) expect((await fetch(`${api.url}/openapi.json`)).status).toBe(200);
  });

  it('answers GET only: another method is the unknown route it is', async () => {
    const response = await api.fetch(`${api.url}/openapi.json`, { method: 'POST' });
    expect(response.status).toBe(404);
  });
});

const ASSETS: Array<[path: string, contentType: string, minimumBytes: number]> = [
  ['/docs/assets/swagger-ui-bundle.js', 'text/javascript; charset=utf-8', 1_000_000],
  ['/docs/assets/swagger-ui.css', 'text/css; charset=utf-8', 100_000],
  ['/docs/assets/index.css', 'text/css; charset=utf-8', 100],
  ['/docs/assets/favicon-32x32.png', 'image/png', 100],
  ['/docs/assets/init.js', 'text/javascript; charset=utf-8', 100],
];

describe('GET /docs', () => {
  it('is an HTML page that loads Swagger UI and its own init script from this gateway, fetching nothing elsewhere', async () => {
    const response = await fetch(`${api.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<div id="swagger-ui"></div>');
    expect(html).toContain('<link rel="stylesheet" href="/docs/assets/swagger-ui.css">');
    expect(html).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
    expect(html).toContain('<script src="/docs/assets/init.js"></script>');
    // No inline script: the CSP below allows none.
    expect(html.match(/<script[^>]*>/g)).toEqual([
      '<script src="/docs/assets/swagger-ui-bundle.js">',
      '<script src="/docs/assets/init.js">',
    ]);
    expect(html).not.toMatch(/https?:\/\//);
    // The browser itself refuses any request to another origin, and any inline script.
    const csp = response.headers.get('content-security-policy');
    expect(csp).toMatch(/default-src 'self'.*script-src 'self';.*connect-src 'self'/);
    expect(csp).not.toContain('unsafe-');
  });

  it('configures Swagger UI for /openapi.json, without the online validator, with "Try it out" on', async () => {
    const script = await (await fetch(`${api.url}/docs/assets/init.js`)).text();
    const options = JSON.parse(/SwaggerUIBundle\((\{.*\})\);/.exec(script)![1]!) as Record<string, unknown>;
    expect(options).toMatchObject({
      url: '/openapi.json',
      dom_id: '#swagger-ui',
      validatorUrl: null,
      queryConfigEnabled: false,
      tryItOutEnabled: true,
      persistAuthorization: false,
    });
  });

  it.each(ASSETS)('serves %s as %s, without a key, outside the rate limit', async (path, contentType, minimumBytes) => {
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(Number(response.headers.get('content-length')));
    expect(body.length).toBeGreaterThan(minimumBytes);
  });

  it('serves the bundle that defines SwaggerUIBundle, and none of the package files the page does not load', async () => {
    expect(await (await fetch(`${api.url}/docs/assets/swagger-ui-bundle.js`)).text()).toContain('SwaggerUIBundle');
    // index.html would start Swagger UI on the petstore document from petstore.swagger.io.
    for (const path of [
      '/docs/assets/index.html',
      '/docs/assets/swagger-initializer.js',
      '/docs/assets/package.json',
    ]) {
      expect((await api.fetch(`${api.url}${path}`)).status, path).toBe(404);
    }
  });
});

describe('GET /docs without swagger-ui-dist', () => {
  let server: Server;
  let url: string;
  // Every read of the package fails, as when it is not installed, until a test "installs" it.
  const readFile = vi.fn((_path: string) =>
    Promise.reject<Buffer>(Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' })),
  );

  beforeAll(async () => {
    vi.resetModules();
    vi.doMock('node:fs/promises', () => ({ readFile }));
    const { createApiDocs } = await import('#infra/local/gateway/serve-api-docs');
    const apiDocs = createApiDocs();
    server = createServer((req, res) => {
      if (!apiDocs(req, res)) res.writeHead(418).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    vi.doUnmock('node:fs/promises');
    await new Promise((resolve) => server.close(resolve));
  });

  it('still serves the page, its init script and the document: the package is read only when a browser asks for it', async () => {
    for (const path of ['/docs', '/docs/assets/init.js', '/openapi.json'])
      expect((await fetch(`${url}${path}`)).status, path).toBe(200);
    expect(readFile).not.toHaveBeenCalled();
  });

  it('answers the package assets with a 404 {code, message} that says what to do', async () => {
    const response = await fetch(`${url}/docs/assets/swagger-ui-bundle.js`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      code: 'NotFound',
      message: 'The reference page needs the swagger-ui-dist package; run npm install.',
    });
    expect(readFile).toHaveBeenCalledTimes(1);
  });

  it('does not remember the failure: an npm install while the gateway runs fixes the page', async () => {
    readFile.mockImplementation(async () => Buffer.from('window.SwaggerUIBundle = () => {};'));
    const response = await fetch(`${url}/docs/assets/swagger-ui-bundle.js`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('window.SwaggerUIBundle = () => {};');
    expect(readFile).toHaveBeenLastCalledWith(expect.stringMatching(/[\\/]swagger-ui-dist[\\/]swagger-ui-bundle\.js$/));
  });
});
