/**
 * The OpenSearch reporting index through the official client, with its HTTP layer answering from
 * recorded responses: the exact search it sends, how it reads hits and totals, and that every
 * failure becomes a 503 `Unavailable` with Retry-After.
 */
import { describe, expect, it, vi } from 'vitest';
import { classifyError } from '#shared/http/classify-error';
import { createOpenSearchClient, signsRequests } from '#shared/store/opensearch-client';
import { SearchUnavailableError } from '#shared/store/opensearch-errors';
import { createOpenSearchReportingIndex } from '#shared/store/opensearch-reporting-index';
import type { ReportPageQuery } from '#shared/store/reporting-index';
import { fakeOpenSearch, type ConnectionFailure, type RecordedResponse } from '#test/support/fake-opensearch-connection';
import {
  accessDenied,
  allShardsFailed,
  indexNotFound,
  searchAnswer,
  searchRejected,
  type RecordedHit,
} from '#test/support/opensearch-recorded-responses';

const PREFIX = 'cxm-test-reporting';
const INDEX = `${PREFIX}-assistant`;
const window = { from: 1_767_225_600_000, to: 1_767_312_000_000 };

const hit = (id: string, datetimeMs: number, extra = ''): RecordedHit => ({
  id: `t1#assistant#${id}`,
  row: JSON.stringify({ ID: id, TenantID: 't1', Datetime: datetimeMs, Summary: extra }),
  sort: [datetimeMs, id],
});

function subject(...answers: Array<RecordedResponse | ConnectionFailure>) {
  const fake = fakeOpenSearch(...answers);
  const client = createOpenSearchClient({ endpoint: 'http://127.0.0.1:9200', Connection: fake.Connection });
  return { index: createOpenSearchReportingIndex(client, PREFIX), requests: fake.requests };
}

const query = (overrides: Partial<ReportPageQuery> = {}): ReportPageQuery => ({
  tenantId: 't1',
  kind: 'assistant',
  window,
  limit: 2,
  withTotal: true,
  maxBytes: 5 * 1024 * 1024,
  ...overrides,
});

describe('the search it sends', () => {
  it('first page: tenant filter, window [from, to), [Datetime, ID] order, limit + 1, total tracked', async () => {
    const { index, requests } = subject(searchAnswer(INDEX, [], 0));
    await index.page(query());
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request).toMatchObject({ method: 'POST', path: `/${INDEX}/_search`, querystring: 'ignore_unavailable=true' });
    expect(request!.json).toEqual({
      query: { bool: { filter: [{ term: { tenantId: 't1' } }, { range: { datetimeMs: { gte: window.from, lt: window.to } } }] } },
      sort: [{ datetimeMs: 'asc' }, { rowId: 'asc' }],
      size: 3,
      track_total_hits: true,
      _source: ['row'],
    });
  });

  it('later pages: search_after the cursor sort key, no total; the kind picks the index', async () => {
    const { index, requests } = subject(searchAnswer(`${PREFIX}-voc`, []));
    await index.page(query({ kind: 'voc', after: [window.from + 5, 'v-07'], withTotal: false, limit: 1000 }));
    const [request] = requests;
    expect(request!.path).toBe(`/${PREFIX}-voc/_search`);
    expect(request!.json).toEqual({
      query: { bool: { filter: [{ term: { tenantId: 't1' } }, { range: { datetimeMs: { gte: window.from, lt: window.to } } }] } },
      sort: [{ datetimeMs: 'asc' }, { rowId: 'asc' }],
      search_after: [window.from + 5, 'v-07'],
      size: 1001,
      track_total_hits: false,
      _source: ['row'],
    });
  });

  it('signs with SigV4 (service es) for a domain endpoint, and not for a local cluster', async () => {
    const fake = fakeOpenSearch(searchAnswer(INDEX, [], 0));
    const client = createOpenSearchClient({
      endpoint: 'https://search-cxm-dev-reporting-abc.eu-west-1.es.amazonaws.com',
      region: 'eu-west-1',
      credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG' }),
      Connection: fake.Connection,
    });
    await createOpenSearchReportingIndex(client, PREFIX).page(query());
    expect(String(fake.requests[0]!.headers.Authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/es\/aws4_request, /);
    expect(signsRequests('http://localhost:9200')).toBe(false);
    expect(signsRequests('https://admin:secret@localhost:9200')).toBe(false);
    expect(signsRequests('https://search-x.eu-west-1.es.amazonaws.com')).toBe(true);
  });

  it('refuses to build a signing client without a region', () => {
    vi.stubEnv('AWS_REGION', undefined);
    try {
      expect(() => createOpenSearchClient({ endpoint: 'https://search-x.es.amazonaws.com' })).toThrow(/AWS_REGION/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('the page it answers', () => {
  it('maps hits to the stored row text, the last sort key and the total', async () => {
    const hits = [hit('a-01', window.from), hit('a-02', window.from)];
    const { index } = subject(searchAnswer(INDEX, hits, 2));
    expect(await index.page(query())).toEqual({ rows: hits.map((h) => h.row), last: [window.from, 'a-02'], more: false, total: 2 });
  });

  it('one hit past the limit means more, and is not served', async () => {
    const hits = [hit('a-01', window.from), hit('a-02', window.from + 1), hit('a-03', window.from + 2)];
    const { index } = subject(searchAnswer(INDEX, hits, 25));
    const page = await index.page(query({ limit: 2 }));
    expect(page).toEqual({ rows: [hits[0]!.row, hits[1]!.row], last: [window.from + 1, 'a-02'], more: true, total: 25 });
  });

  it('no total when it was not asked for', async () => {
    const { index } = subject(searchAnswer(INDEX, [hit('a-09', window.from)]));
    expect((await index.page(query({ withTotal: false, after: [window.from - 1, 'a-08'] }))).total).toBeUndefined();
  });

  it('an empty window: no rows, no last key, no more, total 0', async () => {
    const { index } = subject(searchAnswer(INDEX, [], 0));
    expect(await index.page(query())).toEqual({ rows: [], last: undefined, more: false, total: 0 });
  });

  it('stops at the byte budget, measured escaped as in the Lambda response, and says more remain', async () => {
    const hits = [hit('a-01', window.from, 'x"'.repeat(100)), hit('a-02', window.from + 1, 'y'.repeat(100)), hit('a-03', window.from + 2)];
    const size = (row: string) => Buffer.byteLength(JSON.stringify(row)) + 1;
    const exactlyTwo = size(hits[0]!.row) + size(hits[1]!.row);
    const { index } = subject(searchAnswer(INDEX, hits, 3), searchAnswer(INDEX, hits, 3));
    expect(await index.page(query({ limit: 10, maxBytes: exactlyTwo }))).toMatchObject({ rows: [hits[0]!.row, hits[1]!.row], last: [window.from + 1, 'a-02'], more: true });
    expect(await index.page(query({ limit: 10, maxBytes: exactlyTwo - 1 }))).toMatchObject({ rows: [hits[0]!.row], last: [window.from, 'a-01'], more: true });
  });

  it('serves a first row larger than the whole budget on its own, so paging always advances', async () => {
    const hits = [hit('a-01', window.from, 'z'.repeat(500)), hit('a-02', window.from + 1)];
    const { index } = subject(searchAnswer(INDEX, hits, 2));
    expect(await index.page(query({ limit: 10, maxBytes: 10 }))).toMatchObject({ rows: [hits[0]!.row], more: true });
  });
});

describe('failures: SearchUnavailableError, answered 503 Unavailable', () => {
  const failing: Array<[string, Array<RecordedResponse | ConnectionFailure>, number]> = [
    ['all shards failed (503), also on the one retry', [allShardsFailed, allShardsFailed], 2],
    ['a refused connection, also on the one retry', [{ fail: 'connect ECONNREFUSED 127.0.0.1:9200' }, { fail: 'connect ECONNREFUSED 127.0.0.1:9200' }], 2],
    ['search rejected under load (429, not retried)', [searchRejected], 1],
    // With ignore_unavailable a missing index answers an empty page; a 404 anyway is a fault.
    ['a missing index answered with 404 all the same', [indexNotFound(INDEX)], 1],
    ['the domain refusing the role (403)', [accessDenied], 1],
    ['an answer without hits', [{ statusCode: 200, body: { took: 1, timed_out: false } }], 1],
    ['a hit without its row', [{ statusCode: 200, body: { hits: { total: { value: 1 }, hits: [{ _id: 'x', _source: {}, sort: [1, 'x'] }] } } }], 1],
    ['a total asked for but absent', [searchAnswer(INDEX, [])], 1],
  ];

  it.each(failing)('%s', async (_name, answers, attempts) => {
    const { index, requests } = subject(...answers);
    const error = await index.page(query()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SearchUnavailableError);
    expect(requests).toHaveLength(attempts);
    const { apiError, unexpected } = classifyError(error);
    expect(apiError.status).toBe(503);
    expect(apiError.code).toBe('Unavailable');
    expect(Number(apiError.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(unexpected).toBe(true);
  });

  it('a retry that succeeds is an ordinary page', async () => {
    const { index, requests } = subject(allShardsFailed, searchAnswer(INDEX, [hit('a-01', window.from)], 1));
    expect((await index.page(query())).rows).toHaveLength(1);
    expect(requests).toHaveLength(2);
  });
});
