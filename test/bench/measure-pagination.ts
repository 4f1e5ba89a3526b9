/**
 * `pagination`: on the DynamoDB reporting adapter, page 1 against a deep page of a large window
 * (a page resumes from the cursor's key through ExclusiveStartKey, so a deep page should cost what
 * a shallow one does), and what a 5000-row page costs to serialise. `reportingTotals`: the first
 * page as a list request asks for it, with its window's `total`, on a window of about 1 000 rows
 * against the whole large window, same limit: the total comes from maintained counts, so the
 * large window should cost about what the small one does (within 1.5x).
 */

import { seed } from '#infra/cli/seed/seed-command';
import type { SeedPlan } from '#infra/cli/seed/seed-writes';
import { cursorKey } from '#shared/domain/reporting/report-cursor';
import { RESPONSE_BUDGET_BYTES } from '#shared/http/list-page';
import { serveReportList } from '#shared/reporting/serve-report-list';
import { documentClient } from '#shared/store/dynamo-client';
import type { ReportPage } from '#shared/store/reporting-index';
import type { TableId } from '#shared/store/table-specs';
import { bindDynamoReportingIndex, bindTableStores } from '#shared/store/table-stores';
import { atMost, type Goal, median, pairedRatio, round } from './bench-stats.ts';

const BENCH_CURSOR_KEYS = [cursorKey('bench-cursor-secret-0123456789abcdefghijklmnop')];

const DEPTH_GOAL_RATIO = 1.3;
const SERIALISED_ROWS = 5000;
const TOTALS_GOAL_RATIO = 1.5;
/** The small window of `reportingTotals`: the first this many rows of the large one. */
const SMALL_WINDOW_ROWS = 1000;
const REPORT_TENANT = 'bench-reporting';
const KIND = 'assistant';

export interface PaginationOptions {
  rows: number;
  limit: number;
  /** The deep page compared with page 1. */
  page: number;
  repeats: number;
}

/** Page 1 with its window's total, small window against large, medians of alternating pairs. */
export interface ReportingTotalsFigures {
  smallRows: number;
  largeRows: number;
  limit: number;
  smallMs: number;
  largeMs: number;
  /** Median over alternating pairs of (large / small). */
  ratio: number;
  goal: Goal;
}

export interface PaginationFigures {
  windowRows: number;
  limit: number;
  seedSeconds: number;
  firstPageMs: number;
  deepPage: number;
  deepPageMs: number;
  /** Median over alternating pairs of (deep page / page 1). */
  ratio: number;
  goal: Goal;
  /**
   * Items DynamoDB read (ScannedCount) and queries sent for each page: equal for a page resumed
   * from its key, growing with depth for one that skips.
   */
  reads: { firstPage: { items: number; queries: number }; deepPage: { items: number; queries: number } };
  totals: ReportingTotalsFigures;
  serialise: {
    rows: number;
    bodyBytes: number;
    /** serveReportList's own work on a page the index returned: cursor and body, ms. */
    bodyMs: number;
    /** The Lambda runtime's JSON encoding of the proxy result that carries the body, ms. */
    envelopeMs: number;
    /** For comparison: parsing every row and serialising the page again, ms. */
    parseAndStringifyMs: number;
  };
}

/** Counts the Query calls of `work` and the items DynamoDB read for them. */
async function countReads(work: () => Promise<unknown>): Promise<{ items: number; queries: number }> {
  const stack = documentClient().middlewareStack;
  const name = 'benchQueryReads';
  const counted = { items: 0, queries: 0 };
  stack.add(
    (next) => async (args) => {
      const result = await next(args);
      const scanned = (result.output as { ScannedCount?: unknown }).ScannedCount;
      if (typeof scanned === 'number') {
        counted.queries++;
        counted.items += scanned;
      }
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    stack.remove(name);
  }
  return counted;
}

async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

async function medianMs(repeats: number, work: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) times.push((await timed(async () => work())).ms);
  return median(times);
}

export async function measurePagination(
  tables: Record<TableId, string>,
  options: PaginationOptions,
  progress: (message: string) => void,
): Promise<PaginationFigures> {
  const client = documentClient();
  const now = Date.now();
  const plan: SeedPlan = { tenant: REPORT_TENANT, assistant: options.rows, voc: 0, jobs: 0, days: 30, seed: 1, now };
  progress(`pagination: seeding ${options.rows} reporting rows (the CLI's seed)`);
  const seedSeconds = await seed(
    plan,
    { ...bindTableStores(client, tables), target: 'bench DynamoDB Local' },
    process.stderr.isTTY === true ? process.stderr : undefined,
  );

  const index = bindDynamoReportingIndex(client, tables);
  // Every seeded row: they lie in the last `days` days.
  const window = { from: now - (plan.days + 1) * 86_400_000, to: now + 1 };
  const page = (after: [number, string] | undefined, limit = options.limit, withTotal = false, within = window) =>
    index.page({
      tenantId: REPORT_TENANT,
      kind: KIND,
      window: within,
      after,
      limit,
      withTotal,
      maxBytes: RESPONSE_BUDGET_BYTES,
    });

  progress(`pagination: walking to page ${options.page}`);
  let after: [number, string] | undefined;
  let smallWindow = window;
  for (let n = 1; n < options.page; n++) {
    const walked = await page(after);
    if (walked.rows.length !== options.limit || !walked.last)
      throw new Error(`page ${n} holds ${walked.rows.length} rows, not ${options.limit}`);
    after = walked.last;
    if (smallWindow === window && n * options.limit >= SMALL_WINDOW_ROWS)
      smallWindow = { from: window.from, to: after[0] + 1 };
  }
  const deepAfter = after;

  progress(`pagination: page 1 against page ${options.page}, ${options.repeats} times each`);
  const first: number[] = [];
  const deep: number[] = [];
  for (let i = 0; i < options.repeats; i++) {
    const pair = i % 2 === 0 ? ([undefined, deepAfter] as const) : ([deepAfter, undefined] as const);
    for (const start of pair) {
      const { ms, value } = await timed(() => page(start));
      if (value.rows.length !== options.limit) throw new Error(`a measured page holds ${value.rows.length} rows`);
      (start === undefined ? first : deep).push(ms);
    }
  }
  const ratio = pairedRatio(deep, first);
  const reads = {
    firstPage: await countReads(() => page(undefined)),
    deepPage: await countReads(() => page(deepAfter)),
  };
  const totals = await measureTotals(
    (within) => page(undefined, options.limit, true, within),
    smallWindow,
    window,
    options,
    progress,
  );

  progress(`pagination: serialising a ${SERIALISED_ROWS}-row page`);
  const big = await page(undefined, SERIALISED_ROWS);
  if (big.rows.length !== SERIALISED_ROWS)
    throw new Error(`the ${SERIALISED_ROWS}-row page holds ${big.rows.length} rows`);
  const serialise = await serialiseFigures(big, window, options.repeats);

  return {
    windowRows: options.rows,
    limit: options.limit,
    seedSeconds: round(seedSeconds, 1),
    firstPageMs: round(median(first), 1),
    deepPage: options.page,
    deepPageMs: round(median(deep), 1),
    ratio: round(ratio),
    goal: atMost(ratio, DEPTH_GOAL_RATIO),
    reads,
    totals,
    serialise,
  };
}

async function measureTotals(
  firstPage: (window: { from: number; to: number }) => Promise<ReportPage>,
  small: { from: number; to: number },
  large: { from: number; to: number },
  options: PaginationOptions,
  progress: (message: string) => void,
): Promise<ReportingTotalsFigures> {
  const [smallTotal, largeTotal] = [(await firstPage(small)).total ?? 0, (await firstPage(large)).total ?? 0];
  progress(
    `reporting totals: page 1 with the total of ${smallTotal} rows against ${largeTotal}, ${options.repeats} times each`,
  );
  const times = { small: [] as number[], large: [] as number[] };
  for (let i = 0; i < options.repeats; i++) {
    for (const which of i % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const)) {
      times[which].push((await timed(() => firstPage(which === 'small' ? small : large))).ms);
    }
  }
  const ratio = pairedRatio(times.large, times.small);
  return {
    smallRows: smallTotal,
    largeRows: largeTotal,
    limit: options.limit,
    smallMs: round(median(times.small), 1),
    largeMs: round(median(times.large), 1),
    ratio: round(ratio),
    goal: atMost(ratio, TOTALS_GOAL_RATIO),
  };
}

async function serialiseFigures(
  page: ReportPage,
  window: { from: number; to: number },
  repeats: number,
): Promise<PaginationFigures['serialise']> {
  // The index answers at once with the rows it returned: what remains is the handler's own work.
  const dependencies = {
    kind: KIND,
    index: { page: async () => ({ ...page, total: 100_000 }) },
    keys: async () => BENCH_CURSOR_KEYS,
  } as const;
  const request = {
    tenantId: REPORT_TENANT,
    caller: { keyId: 'benchkey0001', tenants: [REPORT_TENANT], scopes: ['reporting:*'] },
    path: { tenantId: REPORT_TENANT },
    query: { from: String(window.from), to: String(window.to), limit: String(SERIALISED_ROWS) },
    body: undefined,
    requestId: 'bench',
    signal: new AbortController().signal,
    http: {
      method: 'GET',
      headers: {},
      multiValueHeaders: {},
      rawBody: Buffer.alloc(0),
      selfUrl: 'http://127.0.0.1/bench',
    },
  };
  const result = await serveReportList(dependencies, request);
  const body = result.bodyText ?? '';
  const bodyMs = await medianMs(repeats, () => serveReportList(dependencies, request));
  const envelopeMs = await medianMs(repeats, () =>
    JSON.stringify({ statusCode: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body }),
  );
  const parseAndStringifyMs = await medianMs(repeats, () =>
    JSON.stringify({ total: 100_000, cursor: {}, data: page.rows.map((row) => JSON.parse(row) as unknown) }),
  );
  return {
    rows: page.rows.length,
    bodyBytes: Buffer.byteLength(body),
    bodyMs: round(bodyMs, 1),
    envelopeMs: round(envelopeMs, 1),
    parseAndStringifyMs: round(parseAndStringifyMs, 1),
  };
}
