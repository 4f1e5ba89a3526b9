/**
 * The OpenSearch reporting index through our OpenSearch client (opensearch-client.ts), with its fetch answering from
 * recorded responses: the exact search it sends (the kind's read alias over every year index,
 * routed by tenant, no partial results), how it reads hits and totals, deep pages across year
 * indexes without a point in time, and that every failure becomes a 503 `Unavailable` with
 * Retry-After while a stage without any year index yet lists nothing.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { classifyError } from '#shared/http/classify-error';
import { createOpenSearchClient, signsRequests } from '#shared/store/opensearch-client';
import { SearchUnavailableError } from '#shared/store/opensearch-errors';
import { createOpenSearchReportingIndex } from '#shared/store/opensearch-reporting-index';
import type { ReportPageQuery } from '#shared/store/reporting-index';
import {
  type ConnectionFailure,
  FAKE_CLUSTER,
  fakeOpenSearch,
  type RawResponse,
  type RecordedResponse,
  type SentRequest,
} from '#test/support/fake-opensearch-transport';
import {
  accessDenied,
  allShardsFailed,
  indexClosed,
  indexNotFound,
  type RecordedHit,
  searchAnswer,
  searchRejected,
  searchWithFailedShards,
} from '#test/support/opensearch-recorded-responses';

const PREFIX = 'cxm-test-reporting';
/** What the assistant list searches: the read alias every assistant year index carries. */
const INDEX = `${PREFIX}-assistant-read`;
const window = { from: 1_767_225_600_000, to: 1_767_312_000_000 };

const hit = (id: string, datetimeMs: number, extra = ''): RecordedHit => ({
  id: `t1#assistant#${id}`,
  row: JSON.stringify({ ID: id, TenantID: 't1', Datetime: datetimeMs, Summary: extra }),
  sort: [datetimeMs, id],
});

function subject(...answers: Array<RecordedResponse | RawResponse | ConnectionFailure>) {
  const fake = fakeOpenSearch(...answers);
  const client = createOpenSearchClient({ ...FAKE_CLUSTER, transport: fake.transport });
  return { index: createOpenSearchReportingIndex(client, PREFIX), requests: fake.requests };
}

/**
 * SigV4 as AWS documents it ("Create a signed AWS API request"), independently of the SDK's
 * signer: the canonical request from what was sent, the string to sign, the derived key.
 */
function verifySigV4(request: SentRequest, secretAccessKey: string): { valid: boolean; signedHeaders: string[] } {
  const match =
    /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      request.headers.authorization ?? '',
    );
  if (!match) return { valid: false, signedHeaders: [] };
  const [, date, region, service, signedList, signature] = match as unknown as string[];
  const signedHeaders = signedList!.split(';');
  const headerValue = (name: string) => (name === 'host' ? request.host : request.headers[name]!.trim());
  const encode = (value: string) =>
    encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = [...new URLSearchParams(request.querystring)]
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .sort()
    .join('&');
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const canonicalRequest = [
    request.method,
    request.path,
    canonicalQuery,
    ...signedHeaders.map((name) => `${name}:${headerValue(name)}`),
    '',
    signedList,
    sha256(request.body),
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', request.headers['x-amz-date'], scope, sha256(canonicalRequest)].join('\n');
  const key = [date!, region!, service!, 'aws4_request'].reduce<Buffer>(
    (k, part) => createHmac('sha256', k).update(part).digest(),
    Buffer.from(`AWS4${secretAccessKey}`),
  );
  return { valid: createHmac('sha256', key).update(stringToSign).digest('hex') === signature, signedHeaders };
}

const parameters = (querystring: string) => Object.fromEntries(new URLSearchParams(querystring));

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
  it('first page: the read alias, routed by tenant, tenant filter, window [from, to), [Datetime, ID] order, limit + 1, total tracked', async () => {
    const { index, requests } = subject(searchAnswer(INDEX, [], 0));
    await index.page(query());
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request).toMatchObject({ method: 'POST', path: `/${INDEX}/_search` });
    // No ignore_unavailable (it would skip a closed year index and its rows without a word).
    expect(parameters(request!.querystring)).toEqual({ routing: 't1', allow_partial_search_results: 'false' });
    expect(request!.json).toEqual({
      query: {
        bool: {
          filter: [{ term: { tenantId: 't1' } }, { range: { datetimeMs: { gte: window.from, lt: window.to } } }],
        },
      },
      sort: [{ datetimeMs: 'asc' }, { rowId: 'asc' }],
      size: 3,
      track_total_hits: true,
      _source: ['row'],
    });
  });

  it('later pages: search_after the cursor sort key, no total; the kind picks the alias, the tenant the routing', async () => {
    const { index, requests } = subject(searchAnswer(`${PREFIX}-voc-read`, []));
    await index.page(
      query({ tenantId: 'acme.eu', kind: 'voc', after: [window.from + 5, 'v-07'], withTotal: false, limit: 1000 }),
    );
    const [request] = requests;
    expect(request!.path).toBe(`/${PREFIX}-voc-read/_search`);
    expect(parameters(request!.querystring)).toEqual({ routing: 'acme.eu', allow_partial_search_results: 'false' });
    expect(request!.json).toEqual({
      query: {
        bool: {
          filter: [{ term: { tenantId: 'acme.eu' } }, { range: { datetimeMs: { gte: window.from, lt: window.to } } }],
        },
      },
      sort: [{ datetimeMs: 'asc' }, { rowId: 'asc' }],
      search_after: [window.from + 5, 'v-07'],
      size: 1001,
      track_total_hits: false,
      _source: ['row'],
    });
  });

  it('signs with SigV4 (service es) for a domain endpoint, and not for a local cluster', async () => {
    const fake = fakeOpenSearch(searchAnswer(INDEX, [], 0));
    const secretAccessKey = 'wJalrXUtnFEMI/K7MDENG';
    const client = createOpenSearchClient({
      endpoint: 'https://search-cxm-dev-reporting-abc.eu-west-1.es.amazonaws.com',
      region: 'eu-west-1',
      credentials: async () => ({
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey,
        sessionToken: 'session-token-of-the-role',
      }),
      transport: fake.transport,
    });
    await createOpenSearchReportingIndex(client, PREFIX).page(query());
    const [request] = fake.requests;
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/es\/aws4_request, /,
    );
    // A role's temporary credentials: the token travels and is signed.
    expect(request!.headers['x-amz-security-token']).toBe('session-token-of-the-role');
    // The signature checked as the domain checks it (AWS's documented algorithm, written out here):
    // the Host fetch sends, the routing query and the exact body are all covered.
    expect(verifySigV4(request!, secretAccessKey)).toEqual({
      valid: true,
      signedHeaders: expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token']),
    });
    expect(
      verifySigV4(
        { ...request!, querystring: 'routing=another-tenant&allow_partial_search_results=false' },
        secretAccessKey,
      ).valid,
    ).toBe(false);
    expect(verifySigV4({ ...request!, body: request!.body.replace('"t1"', '"t2"') }, secretAccessKey).valid).toBe(
      false,
    );
    // The local engine checks signatures too.
    expect(signsRequests('http://127.0.0.1:9200')).toBe(true);
    expect(signsRequests('https://admin:secret@localhost:9200')).toBe(false);
    expect(signsRequests('https://search-x.eu-west-1.es.amazonaws.com')).toBe(true);
  });

  it('sends the query escaped exactly as it is signed (RFC 3986: a space is %20, never +)', async () => {
    const fake = fakeOpenSearch({ statusCode: 200, body: { acknowledged: true } });
    const secretAccessKey = 'wJalrXUtnFEMI/K7MDENG';
    const client = createOpenSearchClient({
      endpoint: 'https://search-cxm-dev-reporting-abc.eu-west-1.es.amazonaws.com',
      region: 'eu-west-1',
      credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey }),
      transport: fake.transport,
    });
    await client.request({
      method: 'POST',
      path: `/${INDEX}/_search`,
      query: { routing: "a b~*'!()+", q: 'x/y=z' },
      body: {},
    });
    const [request] = fake.requests;
    // The SDK's handler writes the parameters sorted by name.
    expect(request!.querystring).toBe('q=x%2Fy%3Dz&routing=a%20b~%2A%27%21%28%29%2B');
    expect(verifySigV4(request!, secretAccessKey).valid).toBe(true);
  });

  it("a local cluster's user:password goes as Basic authorization, never in the URL, and unsigned", async () => {
    const fake = fakeOpenSearch(searchAnswer(INDEX, [], 0));
    const client = createOpenSearchClient({
      endpoint: 'https://admin:s%3Acret@localhost:9200',
      transport: fake.transport,
    });
    await createOpenSearchReportingIndex(client, PREFIX).page(query());
    const [request] = fake.requests;
    expect(request!.host).toBe('localhost:9200');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('admin:s:cret').toString('base64')}`);
    expect(request!.headers['x-amz-date']).toBeUndefined();
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
    expect(await index.page(query())).toEqual({
      rows: hits.map((h) => h.row),
      last: [window.from, 'a-02'],
      more: false,
      total: 2,
    });
  });

  it('one hit past the limit means more, and is not served', async () => {
    const hits = [hit('a-01', window.from), hit('a-02', window.from + 1), hit('a-03', window.from + 2)];
    const { index } = subject(searchAnswer(INDEX, hits, 25));
    const page = await index.page(query({ limit: 2 }));
    expect(page).toEqual({
      rows: [hits[0]!.row, hits[1]!.row],
      last: [window.from + 1, 'a-02'],
      more: true,
      total: 25,
    });
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
    const hits = [
      hit('a-01', window.from, 'x"'.repeat(100)),
      hit('a-02', window.from + 1, 'y'.repeat(100)),
      hit('a-03', window.from + 2),
    ];
    const size = (row: string) => Buffer.byteLength(JSON.stringify(row)) + 1;
    const exactlyTwo = size(hits[0]!.row) + size(hits[1]!.row);
    const { index } = subject(searchAnswer(INDEX, hits, 3), searchAnswer(INDEX, hits, 3));
    expect(await index.page(query({ limit: 10, maxBytes: exactlyTwo }))).toMatchObject({
      rows: [hits[0]!.row, hits[1]!.row],
      last: [window.from + 1, 'a-02'],
      more: true,
    });
    expect(await index.page(query({ limit: 10, maxBytes: exactlyTwo - 1 }))).toMatchObject({
      rows: [hits[0]!.row],
      last: [window.from, 'a-01'],
      more: true,
    });
  });

  it('deep pages across year indexes: each page resumes after the last key served, whichever index held it; no point in time', async () => {
    const newYear = Date.UTC(2026, 0, 1);
    const hits = [
      { ...hit('a-08', newYear - 2), index: `${PREFIX}-assistant-2025` },
      { ...hit('a-09', newYear - 1), index: `${PREFIX}-assistant-2025` },
      { ...hit('a-01', newYear), index: `${PREFIX}-assistant-2026` },
    ];
    const { index, requests } = subject(searchAnswer(INDEX, hits, 3), searchAnswer(INDEX, hits.slice(2), 3));
    const yearWindow = { from: newYear - 10, to: newYear + 10 };
    const first = await index.page(query({ window: yearWindow, limit: 2 }));
    expect(first).toEqual({ rows: [hits[0]!.row, hits[1]!.row], last: [newYear - 1, 'a-09'], more: true, total: 3 });
    const second = await index.page(query({ window: yearWindow, limit: 2, after: first.last, withTotal: false }));
    expect(second).toEqual({ rows: [hits[2]!.row], last: [newYear, 'a-01'], more: false, total: undefined });
    for (const request of requests) {
      expect(request.path).toBe(`/${INDEX}/_search`);
      expect(request.json).not.toHaveProperty('pit');
      expect(parameters(request.querystring)).not.toHaveProperty('scroll');
    }
    expect(requests[1]!.json).toMatchObject({ search_after: [newYear - 1, 'a-09'], track_total_hits: false });
  });

  it('no year index yet (a new stage: the alias comes with the first one): an empty list, total 0', async () => {
    const { index, requests } = subject(indexNotFound(INDEX), indexNotFound(INDEX));
    expect(await index.page(query())).toEqual({ rows: [], last: undefined, more: false, total: 0 });
    expect(await index.page(query({ withTotal: false, after: [window.from, 'a-01'] }))).toEqual({
      rows: [],
      last: undefined,
      more: false,
      total: undefined,
    });
    expect(requests).toHaveLength(2);
  });

  it('serves a first row larger than the whole budget on its own, so paging always advances', async () => {
    const hits = [hit('a-01', window.from, 'z'.repeat(500)), hit('a-02', window.from + 1)];
    const { index } = subject(searchAnswer(INDEX, hits, 2));
    expect(await index.page(query({ limit: 10, maxBytes: 10 }))).toMatchObject({ rows: [hits[0]!.row], more: true });
  });
});

describe('failures: SearchUnavailableError, answered 503 Unavailable', () => {
  const failing: Array<[string, Array<RecordedResponse | RawResponse | ConnectionFailure>, number]> = [
    ['all shards failed (503), also on the one retry', [allShardsFailed, allShardsFailed], 2],
    [
      'a refused connection, also on the one retry',
      [{ fail: 'connect ECONNREFUSED 127.0.0.1:9200' }, { fail: 'connect ECONNREFUSED 127.0.0.1:9200' }],
      2,
    ],
    ['search rejected under load (429, not retried)', [searchRejected], 1],
    // Only the read alias missing means "nothing indexed yet"; any other missing index is a fault.
    ['a 404 naming another index than the read alias', [indexNotFound(`${PREFIX}-assistant-2026`)], 1],
    ['a closed year index behind the alias (never skipped as if empty)', [indexClosed(`${PREFIX}-assistant-2024`)], 1],
    ['an answer that lost shards', [searchWithFailedShards(INDEX)], 1],
    ['the domain refusing the role (403)', [accessDenied], 1],
    ['an answer without hits', [{ statusCode: 200, body: { took: 1, timed_out: false } }], 1],
    ['an empty answer', [{ statusCode: 200, text: '' }], 1],
    ['an answer that is not JSON (a proxy page)', [{ statusCode: 200, text: '<html>Bad gateway</html>' }], 1],
    [
      'a redirect, never followed (a re-sent request would carry the wrong signature)',
      [{ statusCode: 301, text: '' }],
      1,
    ],
    [
      'a hit without its row',
      [{ statusCode: 200, body: { hits: { total: { value: 1 }, hits: [{ _id: 'x', _source: {}, sort: [1, 'x'] }] } } }],
      1,
    ],
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
