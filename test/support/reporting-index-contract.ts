/**
 * The one contract every ReportingIndex adapter passes: the window is [from, to); rows come
 * in [Datetime, ID] order, equal Datetimes included; a page resumes strictly after `after`;
 * `limit` and `more` agree; the total counts the window on the first page only; tenants and list
 * kinds never mix; a page stops at the byte budget (measured escaped) but always serves one row;
 * a window across New Year (OpenSearch: two year indexes) is one order; a row re-written at
 * another time, in another year, is listed once, at its new time.
 * Each test seeds its own tenant through the subject's real writer.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { type ShapedRow, shapeRow } from '#shared/domain/reporting/report-rows';
import type { ReportingIndex, ReportPage, ReportPageQuery } from '#shared/store/reporting-index';

export interface ContractSubject {
  index: ReportingIndex;
  /** Writes rows the way production does, and returns once the index can read them. */
  seed(tenantId: string, kind: ReportKind, rows: ShapedRow[]): Promise<void>;
}

/** 2026-01-01T00:00:00Z: rows just before it are in 2025. */
const BASE = 1_767_225_600_000;
const WINDOW = { from: BASE, to: BASE + 10 };
const BIG_BUDGET = 5 * 1024 * 1024;

const tenant = () => `contract-${randomUUID().slice(0, 8)}`;

const assistant = (tenantId: string, id: string, datetimeMs: number, extra: Record<string, unknown> = {}) =>
  shapeRow('assistant', tenantId, { ID: id, Datetime: datetimeMs, BotName: 'Helper', ...extra });

/** VOC Datetime as ISO 8601 with a +02:00 tenant offset. */
const voc = (tenantId: string, id: string, datetimeMs: number) =>
  shapeRow('voc', tenantId, {
    ID: id,
    Datetime: `${new Date(datetimeMs + 2 * 3_600_000).toISOString().slice(0, 23)}+02:00`,
  });

/** Rows around WINDOW: two outside each edge, equal Datetimes whose IDs sort otherwise than they were written. */
function windowRows(tenantId: string): { all: ShapedRow[]; inside: ShapedRow[] } {
  const row = (id: string, offset: number) => assistant(tenantId, id, BASE + offset);
  const inside = [row('a-01', 0), row('a-03', 0), row('a-10', 0), row('a-00', 5), row('z', 5), row('a-05', 9)];
  const all = [
    row('before', -1),
    inside[2]!,
    inside[1]!,
    row('at-to', 10),
    inside[4]!,
    inside[0]!,
    inside[5]!,
    inside[3]!,
    row('after', 20),
  ];
  return { all, inside };
}

const text = (rows: ShapedRow[]) => rows.map((row) => JSON.stringify(row.row));

export function reportingIndexContract(subject: () => ContractSubject): void {
  const page = (query: Partial<ReportPageQuery> & Pick<ReportPageQuery, 'tenantId'>): Promise<ReportPage> =>
    subject().index.page({
      kind: 'assistant',
      window: WINDOW,
      limit: 100,
      withTotal: true,
      maxBytes: BIG_BUDGET,
      ...query,
    });

  async function walk(tenantId: string, limit: number): Promise<{ rows: string[]; pages: ReportPage[] }> {
    const pages: ReportPage[] = [];
    let after: [number, string] | undefined;
    for (let i = 0; i < 50; i++) {
      const current = await page({ tenantId, limit, after, withTotal: after === undefined });
      pages.push(current);
      if (!current.more) break;
      after = current.last;
    }
    return { rows: pages.flatMap((p) => p.rows), pages };
  }

  it('serves the window [from, to) in [Datetime, ID] order, each row exactly as stored', async () => {
    const t = tenant();
    const { all, inside } = windowRows(t);
    await subject().seed(t, 'assistant', all);
    const result = await page({ tenantId: t });
    expect(result).toEqual({ rows: text(inside), last: [BASE + 9, 'a-05'], more: false, total: 6 });
  });

  it('an empty window: no rows, no last key, no more, total 0', async () => {
    const t = tenant();
    await subject().seed(t, 'assistant', windowRows(t).all);
    expect(await page({ tenantId: t, window: { from: BASE + 11, to: BASE + 20 } })).toEqual({
      rows: [],
      last: undefined,
      more: false,
      total: 0,
    });
  });

  it('pages resume strictly after `after`, also between equal Datetimes, with no gap or repeat at any page size', async () => {
    const t = tenant();
    const { all, inside } = windowRows(t);
    await subject().seed(t, 'assistant', all);
    for (const limit of [1, 2, 4, 5, 6, 7]) {
      const { rows, pages } = await walk(t, limit);
      expect(rows, `pages of ${limit}`).toEqual(text(inside));
      expect(pages.slice(0, -1).every((p) => p.rows.length === limit && p.more)).toBe(true);
    }
    const resumed = await page({ tenantId: t, after: [BASE, 'a-01'], limit: 1, withTotal: false });
    expect(resumed).toEqual({ rows: text([inside[1]!]), last: [BASE, 'a-03'], more: true, total: undefined });
  });

  it('`more` says exactly whether rows remain past the limit', async () => {
    const t = tenant();
    await subject().seed(t, 'assistant', windowRows(t).all);
    expect((await page({ tenantId: t, limit: 6 })).more).toBe(false);
    expect((await page({ tenantId: t, limit: 5 })).more).toBe(true);
    expect((await page({ tenantId: t, limit: 5, after: [BASE + 5, 'a-00'], withTotal: false })).more).toBe(false);
  });

  it('counts the whole window on the first page only', async () => {
    const t = tenant();
    await subject().seed(t, 'assistant', windowRows(t).all);
    const first = await page({ tenantId: t, limit: 2 });
    expect(first.total).toBe(6);
    expect(first.rows).toHaveLength(2);
    expect((await page({ tenantId: t, limit: 2, after: first.last, withTotal: false })).total).toBeUndefined();
  });

  it("never shows another tenant's rows, even with the same ids and times", async () => {
    const t = tenant();
    const other = tenant();
    const { all, inside } = windowRows(t);
    await subject().seed(t, 'assistant', all);
    await subject().seed(
      other,
      'assistant',
      windowRows(other).all.map((row) => ({ ...row, row: { ...row.row, BotName: 'Foreign' } })),
    );
    const result = await page({ tenantId: t });
    expect(result.rows).toEqual(text(inside));
    expect(result.total).toBe(6);
    expect(await page({ tenantId: `${t}-none` })).toEqual({ rows: [], last: undefined, more: false, total: 0 });
  });

  it('keeps the assistant and VOC lists apart', async () => {
    const t = tenant();
    const { all, inside } = windowRows(t);
    const vocRows = [voc(t, 'a-01', BASE), voc(t, 'v-2', BASE + 3)];
    await subject().seed(t, 'assistant', all);
    await subject().seed(t, 'voc', vocRows);
    expect((await page({ tenantId: t })).rows).toEqual(text(inside));
    expect(await page({ tenantId: t, kind: 'voc' })).toEqual({
      rows: text(vocRows),
      last: [BASE + 3, 'v-2'],
      more: false,
      total: 2,
    });
  });

  it('stops a page at the byte budget, measured escaped, and serves an oversized first row alone', async () => {
    const t = tenant();
    const rows = [0, 1, 2, 3].map((n) =>
      assistant(t, `b-${n}`, BASE + n, { Summary: `"quoted" ${'é'.repeat(50 * (n + 1))}` }),
    );
    await subject().seed(t, 'assistant', rows);
    const size = (row: ShapedRow) => Buffer.byteLength(JSON.stringify(JSON.stringify(row.row))) + 1;
    const two = size(rows[0]!) + size(rows[1]!);
    const fits = await page({ tenantId: t, maxBytes: two });
    expect(fits).toEqual({ rows: text(rows.slice(0, 2)), last: [BASE + 1, 'b-1'], more: true, total: 4 });
    const short = await page({ tenantId: t, maxBytes: two - 1 });
    expect(short).toMatchObject({ rows: text(rows.slice(0, 1)), last: [BASE, 'b-0'], more: true });
    const rest = await page({ tenantId: t, after: fits.last, withTotal: false });
    expect(rest).toEqual({ rows: text(rows.slice(2)), last: [BASE + 3, 'b-3'], more: false, total: undefined });
    expect(await page({ tenantId: t, maxBytes: 1 })).toMatchObject({ rows: text(rows.slice(0, 1)), more: true });
  });

  it('a window across New Year is one order: pages cross from the last rows of a year to the first of the next', async () => {
    const t = tenant();
    const rows = [
      assistant(t, 'y-3', BASE + 1),
      assistant(t, 'y-1', BASE - 2),
      assistant(t, 'y-4', BASE + 1),
      assistant(t, 'y-2', BASE - 1),
    ];
    await subject().seed(t, 'assistant', rows);
    const window = { from: BASE - 5, to: BASE + 5 };
    const ordered = text([rows[1]!, rows[3]!, rows[0]!, rows[2]!]);
    expect(await page({ tenantId: t, window })).toEqual({
      rows: ordered,
      last: [BASE + 1, 'y-4'],
      more: false,
      total: 4,
    });
    const first = await page({ tenantId: t, window, limit: 2 });
    expect(first).toEqual({ rows: ordered.slice(0, 2), last: [BASE - 1, 'y-2'], more: true, total: 4 });
    expect(await page({ tenantId: t, window, limit: 2, after: first.last, withTotal: false })).toEqual({
      rows: ordered.slice(2),
      last: [BASE + 1, 'y-4'],
      more: false,
      total: undefined,
    });
  });

  it('a row written again at a time in another year is listed once, at its new time, and counted once', async () => {
    const t = tenant();
    await subject().seed(t, 'assistant', [assistant(t, 'm-1', BASE + 3), assistant(t, 'm-2', BASE + 4)]);
    const moved = [assistant(t, 'm-1', BASE - 3, { BotName: 'Moved' }), assistant(t, 'm-2', BASE + 4)];
    await subject().seed(t, 'assistant', moved);
    expect(await page({ tenantId: t, window: { from: BASE - 10, to: BASE + 10 } })).toEqual({
      rows: text(moved),
      last: [BASE + 4, 'm-2'],
      more: false,
      total: 2,
    });
    expect(await page({ tenantId: t, window: { from: BASE, to: BASE + 10 } })).toMatchObject({
      rows: text(moved.slice(1)),
      total: 1,
    });
  });
}
