/**
 * What the local gateway answers by itself, and the headers every response carries (error bodies;
 * the chain's last step in shared/README.md).
 *
 * @group sources bundles
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inBundleRuntime } from '#test/support/runtime';
import { expectContractBody, startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('gw');
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.createKey([tenant], ['cxm:*']));
  await api.addConversation(tenant, { id: 'open' });
  await api.addConversation(tenant, { id: 'closed', status: 'closed' });
});
afterAll(() => api.close());

const auth = () => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });

describe('unknown routes', () => {
  it.each([
    ['GET', '/'],
    ['GET', '/api/v1/unknown'],
    ['POST', '/api/v1/cxm/tenants/x/conversations/c/internal-notes/extra'],
    ['POST', '/api/v1/cxm/tenants/x/conversations//internal-notes'],
    ['POST', '/api/v1/cxm/tenants/x/conversations/c/internal-notes/'],
    ['POST', '/API/v1/cxm/tenants/x/conversations/c/internal-notes'],
  ])('%s %s is 404 NotFound', async (method, path) => {
    const response = await api.fetch(`${api.url}${path}`, {
      method,
      headers: auth(),
      body: method === 'GET' ? undefined : '{}',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'NotFound', message: 'No operation matches this method and path.' });
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])(
    '%s on the note path is 404 NotFound, even without a key',
    async (method) => {
      const response = await api.fetch(api.notePath(tenant, 'open'), { method });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('NotFound');
    },
  );
});

describe('headers on every response', () => {
  it('Content-Type, Cache-Control, nosniff and a distinct X-Request-Id, errors included', async () => {
    const requests: Array<[number, () => Promise<Response>]> = [
      [201, () => api.fetch(api.notePath(tenant, 'open'), { method: 'POST', headers: auth(), body: '{"body":"x"}' })],
      [400, () => api.fetch(api.notePath(tenant, 'open'), { method: 'POST', headers: auth(), body: '{"body":""}' })],
      [401, () => api.fetch(api.notePath(tenant, 'open'), { method: 'POST', body: '{"body":"x"}' })],
      [
        403,
        () =>
          api.fetch(api.notePath('someone-else', 'open'), { method: 'POST', headers: auth(), body: '{"body":"x"}' }),
      ],
      [404, () => api.fetch(`${api.url}/nowhere`)],
      [404, () => api.fetch(api.notePath(tenant, 'absent'), { method: 'POST', headers: auth(), body: '{"body":"x"}' })],
      [409, () => api.fetch(api.notePath(tenant, 'closed'), { method: 'POST', headers: auth(), body: '{"body":"x"}' })],
      [
        413,
        () => api.fetch(api.notePath(tenant, 'open'), { method: 'POST', headers: auth(), body: 'x'.repeat(40000) }),
      ],
    ];
    const ids = new Set<string>();
    for (const [status, send] of requests) {
      const response = await send();
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const requestId = response.headers.get('x-request-id');
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(requestId!);
      expectContractBody(status, await response.json());
    }
    expect(ids.size).toBe(requests.length);
  });
});

describe('odd requests', () => {
  const post = (path: string, headers: Record<string, string> = auth()) =>
    api.fetch(`${api.url}${path}`, { method: 'POST', headers, body: '{"body":"x"}' });
  const notes = (conversation: string) => `/api/v1/cxm/tenants/${tenant}/conversations/${conversation}/internal-notes`;

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'a query parameter named %s is an unknown parameter (400)',
    async (name) => {
      const response = await post(`${notes('open')}?${name}=1`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ code: 'BadRequest', message: `Unknown query parameter '${name}'.` });
    },
  );

  it.each(['constructor', '__proto__', 'toString'])('a header named %s is just a header', async (name) => {
    expect((await post(notes('open'), { ...auth(), [name]: 'x' })).status).toBe(201);
    const unauthenticated = await post(notes('open'), {
      'Content-Type': 'application/json',
      Authorization: 'Bearer nope',
      [name]: 'x',
    });
    expect(unauthenticated.status).toBe(401);
  });

  it('headers too large for the HTTP parser get a JSON error body too', async () => {
    // Node's HTTP parser answers this before the gateway sees it: a local answer the OpenAPI document
    // (API Gateway's contract) does not describe, so plain fetch.
    const response = await fetch(`${api.url}${notes('open')}`, {
      method: 'POST',
      headers: { ...auth(), 'X-Padding': 'x'.repeat(20_000) },
      body: '{"body":"x"}',
    });
    expect(response.status).toBe(431);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expectContractBody(431, await response.json());
  });

  it('a path segment that is not valid percent-encoding: 401 without a key, 400 with one', async () => {
    const malformed = notes('%E0%A4%A');
    const anonymous = await post(malformed, { 'Content-Type': 'application/json' });
    expect(anonymous.status).toBe(401);
    const response = await post(malformed);
    expect(response.status).toBe(400);
    const body = await response.json();
    expectContractBody(400, body);
    expect((body as { message: string }).message).toMatch(/percent-encoding/);
  });
});

/**
 * One request with a key of its own, so the functions are warm (bundle mode starts an environment
 * on the first request, which takes longer than a token's refill) before the timed requests.
 */
async function warmUp(gateway: TestApi): Promise<void> {
  // Another tenant: the tenants under test keep every token of their buckets.
  const warm = uniqueTenant('gw-warm');
  await gateway.addConversation(warm, { id: 'open' });
  const { key } = await gateway.createKey([warm], ['cxm:*']);
  expect((await gateway.postNote(warm, 'open', key)).status).toBe(201);
}

// The usage plan's and the stage's throttles are the local gateway's own, before any function:
// the same in both runtimes, so they run with the sources only (each starts a gateway of its own,
// which in bundle mode is a dozen Lambda workers more).
describe.skipIf(inBundleRuntime)('rate limit per tenant (a key of several tenants has its own)', () => {
  it('answers 429 RateLimitExceeded with Retry-After: 1 past the burst, per tenant, and serves again after a refill', async () => {
    // One token per 4 s: the timed requests finish long before a refill even on a loaded machine
    // (at 2/s, four notes slower than 500 ms once got a fourth token back).
    const limited = await startTestApi({ rateLimit: { rate: 0.25, burst: 3 } });
    const [busy, other] = [uniqueTenant('gw-busy'), uniqueTenant('gw-other')];
    try {
      for (const id of [busy, other]) await limited.addConversation(id, { id: 'open' });
      const { key: first } = await limited.createKey([busy], ['cxm:*']);
      const { key: second } = await limited.createKey([busy], ['cxm:*']);
      const { key: otherKey } = await limited.createKey([other], ['cxm:*']);
      await warmUp(limited);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.postNote(busy, 'open', first)).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
      const throttled = await limited.fetch(limited.notePath(busy, 'open'), {
        method: 'POST',
        headers: { Authorization: `Bearer ${first}`, 'Content-Type': 'application/json' },
        body: '{"body":"x"}',
      });
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get('retry-after')).toBe('1');
      expect(throttled.headers.get('x-request-id')).toBeTruthy();
      expectContractBody(429, await throttled.json());
      // The tenant's other key shares its rate (a new key is no way around the limit)...
      expect((await limited.postNote(busy, 'open', second)).status).toBe(429);
      // ...and another tenant has its own.
      expect((await limited.postNote(other, 'open', otherKey)).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 4_100));
      expect((await limited.postNote(busy, 'open', first)).status).toBe(201);
    } finally {
      await limited.close();
    }
  });

  it('a key of several tenants has a rate of its own, across all its tenants, apart from theirs', async () => {
    // The authorizer cache on, as deployed: one cached answer per key serves every path.
    const limited = await startTestApi({ rateLimit: { rate: 0.25, burst: 2 }, authCacheTtlSeconds: 60 });
    const [a, b] = [uniqueTenant('gw-a'), uniqueTenant('gw-b')];
    try {
      for (const id of [a, b]) await limited.addConversation(id, { id: 'open' });
      const { key: both } = await limited.createKey([a, b], ['cxm:*']);
      const { key: onlyA } = await limited.createKey([a], ['cxm:*']);
      // Its burst of two is spent on a and b together...
      const statuses = [];
      for (const tenant of [a, b, a, b]) statuses.push((await limited.postNote(tenant, 'open', both)).status);
      expect(statuses).toEqual([201, 201, 429, 429]);
      // ...while tenant a's own keys keep all of a's.
      const aStatuses = [];
      for (let i = 0; i < 3; i++) aStatuses.push((await limited.postNote(a, 'open', onlyA)).status);
      expect(aStatuses).toEqual([201, 201, 429]);
    } finally {
      await limited.close();
    }
  });

  it('a concurrent burst over the limit: the burst is served, the rest is 429 with Retry-After, never a 5xx', async () => {
    const limited = await startTestApi({ rateLimit: { rate: 1, burst: 10 } });
    try {
      const { key } = await limited.createKey([tenant], ['cxm:*']);
      await warmUp(limited);
      const started = Date.now();
      const responses = await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(limited.notePath(tenant, 'open'), {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: '{"body":"burst"}',
          }),
        ),
      );
      const elapsedSeconds = (Date.now() - started) / 1000;
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      // The bucket refills at 1/s while the burst is in flight: a token more per second it takes.
      const served = statuses.filter((status) => status === 201).length;
      expect(served).toBeGreaterThanOrEqual(10);
      expect(served).toBeLessThanOrEqual(10 + Math.ceil(elapsedSeconds));
      expect(served).toBeLessThan(40);
      expect(statuses.filter((status) => status === 429).length).toBe(40 - served);
      for (const response of responses.filter((candidate) => candidate.status === 429)) {
        expect(response.headers.get('retry-after')).toBe('1');
        expectContractBody(429, await response.json());
      }
    } finally {
      await limited.close();
    }
  });
});

describe.skipIf(inBundleRuntime)('the stage throttle, before the authorizer', () => {
  it('a flood of made-up well-formed tokens is refused with 429 past the stage burst, without the authorizer answering each', async () => {
    // One token per 10 s: nothing refills while the flood is sent, even on a loaded machine.
    const limited = await startTestApi({ stageRateLimit: { rate: 0.1, burst: 5 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 15; i++) {
        const forged = `cxm_${randomBytes(9).toString('base64url').slice(0, 12)}_${randomBytes(30).toString('base64url').slice(0, 40)}`;
        const response = await limited.fetch(limited.notePath('t-flood', 'c1'), {
          method: 'POST',
          headers: { Authorization: `Bearer ${forged}`, 'Content-Type': 'application/json' },
          body: '{"body":"x"}',
        });
        statuses.push(response.status);
        if (response.status === 429) {
          expect(response.headers.get('retry-after')).toBe('1');
          expectContractBody(429, await response.json());
        } else await response.arrayBuffer();
      }
      // The authorizer answered (401) only the burst's five; the other ten never reached it.
      expect(statuses).toEqual([...Array(5).fill(401), ...Array(10).fill(429)]);
      // Per method, as API Gateway applies a stage's throttle: another route still reaches the authorizer.
      const other = await limited.fetch(
        `${limited.url}/api/v1/provisioning/tenants/t-flood/users/u1/versions/current`,
        { headers: { Authorization: `Bearer cxm_aaaaaaaaaaaa_${'A'.repeat(40)}` } },
      );
      expect(other.status).toBe(401);
      await other.arrayBuffer();
    } finally {
      await limited.close();
    }
  });
});
