/**
 * The local gateway's helper pages (DESIGN section 5): the OpenAPI document at /openapi.json and the
 * Scalar reference at /docs, without a key, outside the rate limit, with every asset served locally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#shared/routes';
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
  it('is the OpenAPI 3.1 document with all nine operations, without a key, with the common headers', async () => {
    const response = await fetch(`${api.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const document = (await response.json()) as { openapi: string; servers: Array<{ url: string }>; paths: Record<string, Record<string, Operation>> };
    expect(document.openapi).toMatch(/^3\.1\./);
    const operationIds = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(operationIds).toEqual(expect.arrayContaining(routes.map((route) => route.id)));
    expect(routes).toHaveLength(9);
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

describe('GET /docs', () => {
  it('is an HTML page that renders /openapi.json with the locally served Scalar bundle, fetching nothing elsewhere', async () => {
    const response = await fetch(`${api.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('data-url="/openapi.json"');
    expect(html).toContain('<script src="/docs/assets/standalone.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);
    const configuration = JSON.parse(/data-configuration="([^"]*)"/.exec(html)![1]!.replaceAll('&quot;', '"').replaceAll('&amp;', '&')) as Record<string, unknown>;
    expect(configuration).toMatchObject({ telemetry: false, withDefaultFonts: false, proxyUrl: '' });
    // The browser itself refuses any request to another origin.
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'self'.*connect-src 'self'/);
  });

  it('serves the Scalar bundle as JavaScript', async () => {
    const response = await fetch(`${api.url}/docs/assets/standalone.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const script = await response.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain('createApiReference');
  });
});
