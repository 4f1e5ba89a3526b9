/**
 * Endpoints 7 and 8 and the reporting lists' rules through the local gateway, on the backend the
 * project names (test/vitest.config.ts: DynamoDB's window index, and again the run's OpenSearch
 * engine fed by the indexer): rows are written to the table, then listed once they are searchable.
 *
 * @group sources opensearch
 */
import { Readable } from 'node:stream';
import { HttpResponse } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cursorKey, decodeReportCursor, encodeReportCursor } from '#shared/domain/reporting/report-cursor';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { validatorFor } from '#shared/http/validator-for';
import { documentClient } from '#shared/store/dynamo-client';
import { inBundleRuntime } from '#test/support/runtime';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('rep');
const other = uniqueTenant('rep-other');
let key: string;
const now = Date.now();
const HOUR = 3_600_000;

/** 25 assistant rows an hour apart within the last day (two share a Datetime), plus rows outside it. */
const inDay = Array.from({ length: 25 }, (_, i) => ({
  ID: `a-${String(24 - i).padStart(2, '0')}`,
  Datetime: now - (i + 1) * 50 * 60_000,
}));
inDay[1]!.Datetime = inDay[0]!.Datetime;
const outside = [
  { ID: 'a-old', Datetime: now - 2 * 86_400_000 },
  { ID: 'a-future', Datetime: now + HOUR },
];

type ListBody = { total: number; cursor: { next?: string }; data: Array<Record<string, unknown>> };
const assistantPath = (query = '', t = tenant) => `/api/v1/reporting/tenants/${t}/assistant/conversations${query}`;
const vocPath = (query = '', t = tenant) => `/api/v1/reporting/tenants/${t}/voc/conversations${query}`;
const getList = async (path: string, k = key) => {
  const response = await api.call('GET', path, k);
  return { ...response, body: response.json as ListBody };
};

beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.createKey([tenant], ['reporting:read']));
  await api.reportingRows.putRows(
    tenant,
    'assistant',
    [...inDay, ...outside].map((row) => shapeRow('assistant', tenant, { ...row, BotName: 'Helper', Duration: 42 })),
  );
  await api.reportingRows.putRows(tenant, 'voc', [
    shapeRow('voc', tenant, {
      ID: 'v-1',
      Datetime: `${new Date(now - HOUR + 2 * HOUR).toISOString().slice(0, 19)}+02:00`,
      CSat: 4,
      Problems: [{ name: 'hold' }],
      KPIs: [],
    }),
  ]);
  // The same ids in another tenant: never visible here.
  await api.reportingRows.putRows(
    other,
    'assistant',
    inDay.slice(0, 5).map((row) => shapeRow('assistant', other, { ...row, BotName: 'Foreign' })),
  );
  await api.indexed();
});
afterAll(() => api.close());

/** The functions' DynamoDB queries of the reporting table throttled, until the returned function undoes it. */
function failReportingQueries(): () => void {
  const client = documentClient();
  const name = 'fail-reporting-queries';
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'QueryCommand' && JSON.stringify(args.input).includes(api.tables.reporting)) {
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ThrottlingException',
          $metadata: { httpStatusCode: 400 },
        });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => client.middlewareStack.remove(name);
}

/** The functions' OpenSearch searches refused as a domain under load refuses them, until the returned function undoes it. */
function failSearches(): () => void {
  // The handler the functions' OpenSearch client sends with (every instance: the DynamoDB clients'
  // requests, whose path is never a search, go on as they were).
  const prototype = NodeHttpHandler.prototype;
  const original = prototype.handle;
  prototype.handle = async function (this: NodeHttpHandler, request, options) {
    if (!request.path.endsWith('/_search')) return original.call(this, request, options);
    const body = JSON.stringify({ error: { type: 'es_rejected_execution_exception' }, status: 429 });
    const headers = { 'content-type': 'application/json' };
    return { response: new HttpResponse({ statusCode: 429, headers, body: Readable.from([Buffer.from(body)]) }) };
  };
  return () => {
    prototype.handle = original;
  };
}

describe('the list envelope and rows', () => {
  it('answers {total, cursor, data} with every spec field on every row and nothing else', async () => {
    const { status, body } = await getList(assistantPath());
    expect(status).toBe(200);
    expect(validatorFor('AssistantReportList')(body)).toBe(true);
    expect(body.total).toBe(25);
    expect(body.data[0]).toMatchObject({
      TenantID: tenant,
      BotName: 'Helper',
      Duration: 42,
      Escalated: null,
      'Handoff Reason': null,
      'Contact Name': null,
    });
    expect(Object.keys(body.data[0]!)).toHaveLength(31);
    expect(body.data[0]!.DatetimeUTC).toBe(new Date(body.data[0]!.Datetime as number).toISOString());
  });

  it('VOC rows: Datetime with the tenant offset, DatetimeUTC in Z, every field', async () => {
    const { body } = await getList(vocPath());
    expect(validatorFor('VocReportList')(body)).toBe(true);
    expect(body.data).toHaveLength(1);
    const [row] = body.data;
    expect(row!.Datetime).toMatch(/\+02:00$/);
    expect(row!.DatetimeUTC).toBe(new Date(Date.parse(row!.Datetime as string)).toISOString());
    expect(row).toMatchObject({ ID: 'v-1', CSat: 4, Problems: [{ name: 'hold' }], KPIs: [], Sentiment: null });
    expect(Object.keys(row!)).toHaveLength(30);
  });
});

describe('windows', () => {
  const ids = async (query: string) => (await getList(assistantPath(query))).body.data.map((row) => row.ID);

  it('defaults to the last day, ordered by Datetime then ID', async () => {
    const expected = [...inDay]
      .sort((a, b) => a.Datetime - b.Datetime || a.ID.localeCompare(b.ID))
      .map((row) => row.ID);
    expect(await ids('')).toEqual(expected);
    expect(expected.indexOf('a-23')).toBe(expected.indexOf('a-24') - 1);
  });

  it('last_week and last_month reach older rows; from..to is [from, to)', async () => {
    expect(await ids('?range=last_week')).toContain('a-old');
    expect(await ids('?range=last_month')).toContain('a-old');
    const first = inDay[24]!;
    const second = inDay[23]!;
    expect(await ids(`?from=${first.Datetime}&to=${second.Datetime}`)).toEqual([first.ID]);
    expect(await ids(`?from=${new Date(first.Datetime).toISOString()}&to=${second.Datetime + 1}`)).toEqual([
      first.ID,
      second.ID,
    ]);
    expect(await ids(`?from=${now - 3 * 86_400_000}&to=${now + 2 * HOUR}`)).toContain('a-future');
  });

  it.each([
    ['?limit=0', /'limit'/],
    ['?limit=5001', /'limit'/],
    ['?limit=ten', /'limit'/],
    ['?limit=2.5', /'limit'/],
    ['?range=last_year', /'range'/],
    ['?range=last_day&from=1', /'range' and 'from'/],
    ['?from=2000&to=1000', /'from' must be before 'to'/],
    ['?from=2000&to=2000', /'from' must be before 'to'/],
    ['?from=yesterday', /'from' must be an ISO 8601/],
    ['?to=2026-02-30T00:00:00Z', /'to' must be an ISO 8601/],
    ['?cursor=abc&from=1', /'cursor' cannot be combined/],
    ['?cursor=abc&range=last_day', /'cursor' cannot be combined with 'range'/],
    ['?cursor=abc&to=1', /'cursor' cannot be combined with 'to'/],
    ['?from=1969-01-01T00:00Z&to=1969-06-01T00:00Z', /at or after 1970/],
    ['?cursor=abc', /not a cursor of this API/],
    ['?page=2', /Unknown query parameter 'page'/],
  ])('%s is 400', async (query, message) => {
    for (const path of [assistantPath(query), vocPath(query)]) {
      const response = await api.call('GET', path, key);
      expect(response.status).toBe(400);
      expect((response.json as { message: string }).message).toMatch(message);
    }
  });
});

describe('paging', () => {
  it('walks 25 rows in pages of 10: no gap, no repeat, total fixed, cursor {} at the end', async () => {
    const seen: unknown[] = [];
    const sizes: number[] = [];
    let query = '?limit=10';
    for (let page = 0; page < 5; page++) {
      const { body } = await getList(assistantPath(query));
      expect(body.total).toBe(25);
      seen.push(...body.data.map((row) => row.ID));
      sizes.push(body.data.length);
      if (!body.cursor.next) {
        expect(body.cursor).toEqual({});
        break;
      }
      query = `?limit=10&cursor=${body.cursor.next}`;
    }
    expect(sizes).toEqual([10, 10, 5]);
    expect(seen).toEqual((await getList(assistantPath())).body.data.map((row) => row.ID));
  });

  it('keeps the first page total even when rows arrive while paging', async () => {
    const t = uniqueTenant('growing');
    const { key: k } = await api.createKey([t], ['reporting:assistant.read']);
    await api.reportingRows.putRows(
      t,
      'assistant',
      inDay.slice(0, 4).map((row) => shapeRow('assistant', t, row)),
    );
    await api.indexed();
    const first = await getList(assistantPath('?limit=2', t), k);
    await api.reportingRows.putRows(t, 'assistant', [shapeRow('assistant', t, { ID: 'late', Datetime: now - 1000 })]);
    await api.indexed();
    const second = await getList(assistantPath(`?limit=2&cursor=${first.body.cursor.next}`, t), k);
    expect(first.body.total).toBe(4);
    expect(second.body.total).toBe(4);
  });

  it('refuses a tampered cursor, the other list’s cursor and another tenant’s cursor', async () => {
    const { body } = await getList(assistantPath('?limit=1'));
    const cursor = body.cursor.next!;
    const flipped = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
    expect((await api.call('GET', assistantPath(`?cursor=${flipped}`), key)).status).toBe(400);
    const otherList = await api.call('GET', vocPath(`?cursor=${cursor}`), key);
    expect(otherList.status).toBe(400);
    expect((otherList.json as { message: string }).message).toMatch(/another list or tenant/);
    const { key: both } = await api.createKey([tenant, other], ['reporting:*']);
    const foreign = await api.call('GET', assistantPath(`?cursor=${cursor}`, other), both);
    expect(foreign.status).toBe(400);
  });
});

describe('cursors over time and failures', () => {
  it('refuses a cursor older than 24 hours (signed by us, only old)', async () => {
    const { body } = await getList(assistantPath('?limit=1'));
    const old = encodeReportCursor(
      {
        tenantId: tenant,
        kind: 'assistant',
        window: { from: now - 86_400_000, to: now },
        after: [now - HOUR, 'a-01'],
        total: 25,
      },
      cursorKey(process.env.CXM_CURSOR_SECRET!),
      Date.now() - 24 * HOUR - 1000,
    );
    expect(body.cursor.next).toBeTruthy();
    const response = await api.call('GET', assistantPath(`?cursor=${old}`), key);
    expect(response.status).toBe(400);
    expect((response.json as { message: string }).message).toMatch(/expired/);
  });

  it('continues a list from a cursor of the previous signing key, and refuses one of a key retired before it', async () => {
    // The test stage runs with a current and a previous key, as a stage does after one rotation
    // (bundles: AWSCURRENT and AWSPREVIOUS of the Secrets Manager secret).
    const { body: first } = await getList(assistantPath('?limit=5'));
    const served = decodeReportCursor(
      first.cursor.next!,
      { tenantId: tenant, kind: 'assistant' },
      [cursorKey(process.env.CXM_CURSOR_SECRET!)],
      Date.now(),
    );
    if (!served.ok) throw new Error(`the first page's cursor does not decode: ${served.reason}`);
    const { state } = served;
    const ofPrevious = encodeReportCursor(state, cursorKey(process.env.CXM_CURSOR_SECRET_PREVIOUS!), Date.now());
    const continued = await api.call('GET', assistantPath(`?cursor=${ofPrevious}`), key);
    expect(continued.status).toBe(200);
    const { body: second } = await getList(assistantPath(`?cursor=${encodeURIComponent(first.cursor.next!)}`));
    expect(continued.json).toEqual(second);
    const ofRetired = encodeReportCursor(state, cursorKey('a-key-retired-two-rotations-ago-0123456789'), Date.now());
    const refused = await api.call('GET', assistantPath(`?cursor=${ofRetired}`), key);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      code: expect.any(String),
      message: expect.stringMatching(/no longer accepts.*start again without a cursor/),
    });
  });

  // Fails the backend inside the functions, which only the in-process sources share with the test:
  // DynamoDB's queries through the functions' own client, OpenSearch's searches through the HTTP
  // handler its client sends with. test/integration/store-faults.test.ts injects store faults over HTTP in
  // both runtimes; test/integration/reporting-backends.test.ts stops the engine itself.
  it.skipIf(inBundleRuntime)(
    'answers 503 Unavailable with Retry-After when the reporting backend fails, and keeps serving',
    async () => {
      const restore = api.reportingBackend === 'opensearch' ? failSearches() : failReportingQueries();
      try {
        const response = await api.call('GET', assistantPath(), key);
        expect(response.status).toBe(503);
        expect(response.json).toEqual({ code: 'Unavailable', message: expect.any(String) });
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      } finally {
        restore();
      }
      expect((await api.call('GET', assistantPath(), key)).status).toBe(200);
    },
  );

  it('stops a page before its body passes 5 MB as Lambda sends it; the cursor continues without gap or repeat', async () => {
    const t = uniqueTenant('big');
    const { key: k } = await api.createKey([t], ['reporting:*']);
    // 30 rows of ~200 KB of quotes: ~400 KB each once escaped in the Lambda envelope, 12 MB in all.
    const summary = '"'.repeat(100_000);
    const rows = Array.from({ length: 30 }, (_, i) =>
      shapeRow('assistant', t, {
        ID: `big-${String(i).padStart(2, '0')}`,
        Datetime: now - (i + 1) * 60_000,
        Summary: summary,
      }),
    );
    await api.reportingRows.putRows(t, 'assistant', rows);
    await api.indexed();
    const seen: unknown[] = [];
    let query = '?limit=5000';
    let pages = 0;
    for (;;) {
      const { text, body } = await getList(assistantPath(query, t), k);
      expect(Buffer.byteLength(JSON.stringify(text))).toBeLessThan(6 * 1024 * 1024);
      expect(body.total).toBe(30);
      seen.push(...body.data.map((row) => row.ID));
      pages++;
      if (!body.cursor.next) break;
      query = `?limit=5000&cursor=${body.cursor.next}`;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(rows.map((row) => row.id).reverse());
  });
});

describe('isolation and scopes', () => {
  it("never shows another tenant's rows, even with the same ids", async () => {
    const { body } = await getList(assistantPath('?limit=100'));
    expect(body.data.every((row) => row.TenantID === tenant && row.BotName === 'Helper')).toBe(true);
    expect((await api.call('GET', assistantPath('', other), key)).status).toBe(403);
  });

  it.each([
    ['reporting:assistant.read', 200, 403],
    ['reporting:voc.read', 403, 200],
    ['reporting:read', 200, 200],
    ['reporting:*', 200, 200],
    ['voc:recordings.read', 403, 403],
  ] as const)('%s: assistant %i, voc %i', async (scope, assistant, voc) => {
    const { key: k } = await api.createKey([tenant], [scope]);
    expect((await api.call('GET', assistantPath(), k)).status).toBe(assistant);
    expect((await api.call('GET', vocPath(), k)).status).toBe(voc);
  });
});
