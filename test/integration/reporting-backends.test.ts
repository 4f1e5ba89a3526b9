/**
 * Both reporting lists end to end over HTTP, on each backend (the projects of test/vitest.config.ts
 * run this file on DynamoDB's window index and on the run's OpenSearch engine; npm-start.test.ts
 * serves the lists of an OpenSearch stage's bundles): the same rows written to the table give the
 * same pages, cursors, totals and refusals. The rows straddle the UTC new year, so on OpenSearch
 * they live in two year indexes that each page reads as one list; the same ids live in another
 * tenant, whose rows no parameter, filter or cursor reaches.
 *
 * @group sources opensearch
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

const MINUTE = 60_000;
const NEW_YEAR = Date.parse('2026-01-01T00:00:00.000Z');
/** The window every list here reads: the day before the new year and the day after. */
const WINDOW = { from: '2025-12-31T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' };

/** 24 assistant rows ten minutes apart from 22:00 UTC on new year's eve, two of them at one instant. */
const assistant = Array.from({ length: 24 }, (_, i) => ({
  ID: `a-${String(i).padStart(2, '0')}`,
  Datetime: NEW_YEAR - 2 * 60 * MINUTE + i * 10 * MINUTE,
}));
assistant[13]!.Datetime = assistant[12]!.Datetime;
/** The last millisecond of the year and the first of the next. */
assistant.push({ ID: 'a-eve', Datetime: NEW_YEAR - 1 }, { ID: 'a-day', Datetime: NEW_YEAR });

/**
 * 10 VOC rows in the tenant's local time (+01:00) twelve minutes apart: the first half are 2026
 * there and still 2025 in UTC, which decides their year.
 */
const voc = Array.from({ length: 10 }, (_, i) => {
  const at = new Date(NEW_YEAR - 60 * MINUTE + i * 12 * MINUTE + 60 * MINUTE);
  return { ID: `v-${i}`, Datetime: `${at.toISOString().slice(0, 19)}+01:00` };
});

const tenant = uniqueTenant('both');
const other = uniqueTenant('both-other');
let api: TestApi;
let key: string;

type ListBody = { total: number; cursor: { next?: string }; data: Array<Record<string, unknown>> };
const listPath = (kind: ReportKind, query: string, t = tenant) =>
  `/api/v1/reporting/tenants/${t}/${kind}/conversations?${query}`;
const window = (from = WINDOW.from, to = WINDOW.to) => `from=${from}&to=${to}`;

async function list(kind: ReportKind, query: string, t = tenant, k = key): Promise<ListBody> {
  const response = await api.call('GET', listPath(kind, query, t), k);
  expect(response.status, response.text).toBe(200);
  return response.json as ListBody;
}

/** Every page of a list, `limit` rows at a time: the ids in order, and each page's total. */
async function walk(kind: ReportKind, query: string, limit: number) {
  const ids: unknown[] = [];
  const totals: number[] = [];
  let next = `${query}&limit=${limit}`;
  for (let page = 0; page < 100; page++) {
    const body = await list(kind, next);
    ids.push(...body.data.map((row) => row.ID));
    totals.push(body.total);
    if (!body.cursor.next) return { ids, totals };
    next = `limit=${limit}&cursor=${body.cursor.next}`;
  }
  throw new Error('the cursor never ended');
}

/** The ids of `rows` in the lists' order: Datetime, then ID. */
const ordered = (rows: Array<{ ID: string; at: number }>) =>
  rows
    .slice()
    .sort((a, b) => a.at - b.at || (a.ID < b.ID ? -1 : 1))
    .map((row) => row.ID);
const assistantOrder = () => ordered(assistant.map((row) => ({ ID: row.ID, at: row.Datetime })));
const vocOrder = () => ordered(voc.map((row) => ({ ID: row.ID, at: Date.parse(row.Datetime) })));

beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.createKey([tenant], ['reporting:read']));
  await api.reportingRows.putRows(
    tenant,
    'assistant',
    assistant.map((row) => shapeRow('assistant', tenant, { ...row, BotName: 'Ours' })),
  );
  await api.reportingRows.putRows(
    tenant,
    'voc',
    voc.map((row) => shapeRow('voc', tenant, row)),
  );
  // The same ids in another tenant, inside the same window: on OpenSearch, in the same indexes.
  await api.reportingRows.putRows(
    other,
    'assistant',
    assistant.map((row) => shapeRow('assistant', other, { ...row, BotName: 'Theirs' })),
  );
  await api.reportingRows.putRows(
    other,
    'voc',
    voc.map((row) => shapeRow('voc', other, row)),
  );
  await api.indexed();
});
afterAll(() => api?.close());

describe(`both lists on ${process.env.CXM_REPORTING_BACKEND ?? 'dynamodb'}`, () => {
  it('page across the UTC new year in [Datetime, ID] order: every row once, the total fixed on every page', async () => {
    for (const limit of [1, 5, 26]) {
      const walked = await walk('assistant', window(), limit);
      expect(walked.ids).toEqual(assistantOrder());
      expect(new Set(walked.totals)).toEqual(new Set([assistant.length]));
    }
    const vocWalk = await walk('voc', window(), 3);
    expect(vocWalk.ids).toEqual(vocOrder());
    expect(new Set(vocWalk.totals)).toEqual(new Set([voc.length]));
  });

  it('count the same rows the same: a window in one year, one across it, one where no row is', async () => {
    const eve = assistant.filter((row) => row.Datetime < NEW_YEAR).length;
    expect((await list('assistant', window(WINDOW.from, '2026-01-01T00:00:00.000Z'))).total).toBe(eve);
    expect((await list('assistant', window('2026-01-01T00:00:00.000Z'))).total).toBe(assistant.length - eve);
    // The last millisecond of one year and the first of the next: one row, then three at one instant.
    const edge = await list('assistant', window('2025-12-31T23:59:59.999Z', '2026-01-01T00:00:00.001Z'));
    expect(edge.data.map((row) => [row.ID, row.Datetime])).toEqual([
      ['a-eve', NEW_YEAR - 1],
      ['a-12', NEW_YEAR],
      ['a-13', NEW_YEAR],
      ['a-day', NEW_YEAR],
    ]);
    expect((await list('voc', window(WINDOW.from, '2026-01-01T00:00:00.000Z'))).total).toBe(5);
    expect(await list('assistant', window('2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z'))).toEqual({
      total: 0,
      cursor: {},
      data: [],
    });
  });

  it("keep to the tenant: the same ids elsewhere, and no parameter or cursor reaches another's rows", async () => {
    const ours = await list('assistant', `${window()}&limit=100`);
    expect(ours.data.map((row) => [row.TenantID, row.BotName])).toEqual(assistant.map(() => [tenant, 'Ours']));
    for (const extra of [`routing=${other}`, `tenantId=${other}`, 'q=*', 'preference=_shards:0', 'size=1000']) {
      const refused = await api.call('GET', listPath('assistant', `${window()}&${extra}`), key);
      expect(refused.status, extra).toBe(400);
    }
    const { key: both } = await api.createKey([tenant, other], ['reporting:read']);
    const first = await list('assistant', `${window()}&limit=2`, tenant, both);
    const foreign = await api.call('GET', listPath('assistant', `limit=2&cursor=${first.cursor.next}`, other), both);
    expect(foreign.status).toBe(400);
    // Their own list, with a key of both, is theirs alone.
    const theirs = await list('assistant', `${window()}&limit=100`, other, both);
    expect(new Set(theirs.data.map((row) => row.BotName))).toEqual(new Set(['Theirs']));
    expect((await api.call('GET', listPath('assistant', window(), other), key)).status).toBe(403);
  });

  it('list a row rewritten into the other year once, at its new time', async () => {
    const t = uniqueTenant('moved');
    const { key: k } = await api.createKey([t], ['reporting:assistant.read']);
    await api.reportingRows.putRows(t, 'assistant', [
      shapeRow('assistant', t, { ID: 'moving', Datetime: NEW_YEAR - 5 * MINUTE }),
      shapeRow('assistant', t, { ID: 'staying', Datetime: NEW_YEAR - 3 * MINUTE }),
    ]);
    await api.indexed();
    await api.reportingRows.putRows(t, 'assistant', [
      shapeRow('assistant', t, { ID: 'moving', Datetime: NEW_YEAR + 5 * MINUTE }),
    ]);
    await api.indexed();
    const listed = await list('assistant', `${window()}&limit=10`, t, k);
    expect(listed.data.map((row) => [row.ID, row.Datetime])).toEqual([
      ['staying', NEW_YEAR - 3 * MINUTE],
      ['moving', NEW_YEAR + 5 * MINUTE],
    ]);
    expect(listed.total).toBe(2);
    expect((await list('assistant', window(WINDOW.from, '2026-01-01T00:00:00.000Z'), t, k)).total).toBe(1);
  });
});
