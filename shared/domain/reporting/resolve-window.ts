/**
 * The time window and page size of a reporting list request, or the reason it is refused.
 * Window: `from` given -> [from, to); else [to - range, to); `to` defaults to now, `range` to
 * last_day. A cursor carries its own window, so it cannot be combined with range, from or to.
 */
import { parseInstant } from '#shared/domain/time/parse-instant';

export const RANGES = { last_day: 86_400_000, last_week: 7 * 86_400_000, last_month: 30 * 86_400_000 } as const;
export type RangeName = keyof typeof RANGES;

export const DEFAULT_REPORT_LIMIT = 1000;
/**
 * Reporting instants are epoch milliseconds from 1970 up to 15 digits (the DynamoDB window index
 * orders them as zero-padded strings); a bound outside is refused rather than misread.
 */
export const MIN_INSTANT = 0;
export const MAX_INSTANT = 999_999_999_999_999;
const inRange = (ms: number | undefined) => ms !== undefined && ms >= MIN_INSTANT && ms <= MAX_INSTANT;
export const MAX_REPORT_LIMIT = 5000;

export interface ReportQuery {
  limit?: string;
  cursor?: string;
  range?: string;
  from?: string;
  to?: string;
}

export interface Window {
  from: number;
  to: number;
}

export type Resolved =
  | { ok: true; limit: number; window: Window | undefined; cursor: string | undefined }
  | { ok: false; message: string };

const refuse = (message: string): Resolved => ({ ok: false, message });

export function resolveLimit(limit: string | undefined): number | undefined {
  if (limit === undefined) return DEFAULT_REPORT_LIMIT;
  if (!/^\d{1,4}$/.test(limit)) return undefined;
  const value = Number(limit);
  return value >= 1 && value <= MAX_REPORT_LIMIT ? value : undefined;
}

export function resolveWindow(query: ReportQuery, nowMs: number): Resolved {
  const limit = resolveLimit(query.limit);
  if (limit === undefined)
    return refuse(`Query parameter 'limit' must be a whole number from 1 to ${MAX_REPORT_LIMIT}, written in digits.`);
  if (query.cursor !== undefined) {
    const clashing = (['range', 'from', 'to'] as const).filter((name) => query[name] !== undefined);
    if (clashing.length > 0) {
      return refuse(
        `Query parameter 'cursor' cannot be combined with ${clashing.map((name) => `'${name}'`).join(', ')}: the cursor carries its window.`,
      );
    }
    return { ok: true, limit, window: undefined, cursor: query.cursor };
  }
  if (query.range !== undefined && query.from !== undefined) {
    return refuse(
      "Query parameters 'range' and 'from' cannot be combined: give a range, or a from (and optionally a to).",
    );
  }
  if (query.range !== undefined && !Object.hasOwn(RANGES, query.range)) {
    return refuse(`Query parameter 'range' must be one of ${Object.keys(RANGES).join(', ')}.`);
  }
  const to = query.to === undefined ? nowMs : parseInstant(query.to);
  if (to === undefined)
    return refuse("Query parameter 'to' must be an ISO 8601 date-time with a zone or epoch milliseconds.");
  if (!inRange(to)) return refuse("Query parameter 'to' must be at or after 1970-01-01T00:00:00Z.");
  let from: number;
  if (query.from !== undefined) {
    const parsed = parseInstant(query.from);
    if (parsed === undefined)
      return refuse("Query parameter 'from' must be an ISO 8601 date-time with a zone or epoch milliseconds.");
    if (!inRange(parsed)) return refuse("Query parameter 'from' must be at or after 1970-01-01T00:00:00Z.");
    from = parsed;
  } else {
    // A range reaching before 1970 simply starts there: no row is older.
    from = Math.max(MIN_INSTANT, to - RANGES[(query.range ?? 'last_day') as RangeName]);
  }
  if (from >= to) return refuse("Query parameter 'from' must be before 'to'.");
  return { ok: true, limit, window: { from, to }, cursor: undefined };
}
