/**
 * Targets a webhook endpoint may not have, over real HTTP in both runtimes: the API's own host (here
 * the local gateway's, under each of its names) and, off loopback, any port but https's 443. Both
 * are refused at registration and at a change, naming why, and nothing is written.
 *
 * @group sources bundles
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPath, routeById } from '#shared/api/route-table';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
let key: string;
const tenant = uniqueTenant('hook-targets');

beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.createKey(
    [tenant],
    ['webhooks:endpoints.read', 'webhooks:endpoints.write', 'cxm:conversations.write'],
  ));
});
afterAll(() => api?.close());

const endpointsPath = fillPath(routeById('createWebhookEndpoint'), { tenantId: tenant });

describe('refused targets', () => {
  it("the API's own host, under any of its names, and a port other than 443 off loopback: 400, nothing written", async () => {
    const { port } = new URL(api.url);
    const refused = [
      [`${api.url}/api/v1/mcp`, `127.0.0.1:${port} is this API's own host`],
      [`http://localhost:${port}/hooks`, `localhost:${port} is this API's own host`],
      [`http://[::1]:${port}/hooks`, `[::1]:${port} is this API's own host`],
      ['https://hooks.example.com:8443/cxm', "https's own port, 443, not 8443"],
    ] as const;
    for (const [url, named] of refused) {
      const response = await api.call('POST', endpointsPath, key, { body: { url, events: ['note.created'] } });
      expect(response.status, url).toBe(400);
      expect((response.json as { message: string }).message).toContain(named);
    }
    const listed = await api.call('GET', endpointsPath, key);
    expect((listed.json as { data: unknown[] }).data).toEqual([]);

    const created = await api.call('POST', endpointsPath, key, {
      body: { url: 'http://127.0.0.1:9/hooks', events: ['note.created'] },
    });
    expect(created.status).toBe(201);
    const endpointPath = fillPath(routeById('updateWebhookEndpoint'), {
      tenantId: tenant,
      endpointId: (created.json as { id: string }).id,
    });
    for (const [url, named] of refused) {
      const response = await api.call('PATCH', endpointPath, key, { body: { url } });
      expect(response.status, url).toBe(400);
      expect((response.json as { message: string }).message).toContain(named);
    }
    expect((await api.call('GET', endpointPath, key)).json).toMatchObject({ url: 'http://127.0.0.1:9/hooks' });
  });
});
