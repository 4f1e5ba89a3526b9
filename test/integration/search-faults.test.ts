/**
 * OpenSearch failing under the reporting lists in the ways a real engine cannot be made to here:
 * a domain's 429 under load, a 500, every shard failing, a connection reset, a proxy's HTML, a
 * cluster that never answers. Over HTTP through the gateway, with the functions on the OpenSearch
 * backend against a stub cluster (test/support/opensearch-stub.ts), so the real client, its
 * retries and its timeouts run. Every failure is 503 `Unavailable` with Retry-After, never an empty
 * list, a 502 or a 504, and the next request is served. The queries themselves, and the engine
 * stopped outright, are tested against the run's real engine (test/integration/reporting*.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allShardsFailed, searchRejected } from '#test/support/opensearch-recorded-responses';
import { type OpenSearchStub, type StubAnswer, startOpenSearchStub } from '#test/support/opensearch-stub';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

const PREFIX = 'cxm-test-reporting';
const tenant = uniqueTenant('search');
let stub: OpenSearchStub;
let api: TestApi;
let key: string;

const listPath = (kind: 'assistant' | 'voc') => `/api/v1/reporting/tenants/${tenant}/${kind}/conversations`;

beforeAll(async () => {
  stub = await startOpenSearchStub();
  api = await startTestApi({ reportingBackend: 'opensearch', opensearchEndpoint: stub.url, indexPrefix: PREFIX });
  ({ key } = await api.createKey([tenant], ['reporting:read']));
});

afterAll(async () => {
  await api?.close();
  await stub?.close();
});

describe('the lists on OpenSearch', () => {
  // [failure, what the cluster answers, how many requests the client makes (it retries connection
  // errors, timeouts and 502/503/504 once; never a 429, which asks it to slow down)]
  it.each<[string, StubAnswer[], number]>([
    [
      '500 from the cluster',
      [{ statusCode: 500, body: { error: { type: 'exception', reason: 'boom' }, status: 500 } }],
      1,
    ],
    ['503 all shards failed, twice', [allShardsFailed, allShardsFailed], 2],
    ['429 search rejected', [searchRejected], 1],
    ['connection reset, twice', ['reset', 'reset'], 2],
    ['an answer that is not JSON', [{ statusCode: 200, text: '<html>Bad gateway</html>' }], 1],
  ])('%s: 503 Unavailable with Retry-After, then served again', async (_name, answers, attempts) => {
    for (const kind of ['assistant', 'voc'] as const) {
      stub.script(...answers);
      const before = stub.requests.length;
      const failed = await api.call('GET', listPath(kind), key);
      expect(failed.status).toBe(503);
      expect(failed.json).toEqual({ code: 'Unavailable', message: expect.any(String) });
      expect(Number(failed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(stub.requests.length - before).toBe(attempts);
      expect(await api.call('GET', listPath(kind), key)).toMatchObject({ status: 200, json: { total: 0, data: [] } });
    }
  });

  it.each<[string, 'no-answer' | 'stalled-body', 'assistant' | 'voc']>([
    ['a cluster that never answers', 'no-answer', 'assistant'],
    ["a cluster whose answer's body never ends (the timeout covers the body too)", 'stalled-body', 'voc'],
  ])(
    '%s: 503 Unavailable within the function deadline (the client times out first), not 504',
    async (_name, answer, kind) => {
      stub.script(answer, answer);
      const before = stub.requests.length;
      const failed = await api.call('GET', listPath(kind), key);
      expect(failed.status).toBe(503);
      expect(failed.json).toEqual({ code: 'Unavailable', message: expect.any(String) });
      expect(stub.requests.length - before).toBe(2);
      expect((await api.call('GET', listPath(kind), key)).status).toBe(200);
    },
    60_000,
  );
});
