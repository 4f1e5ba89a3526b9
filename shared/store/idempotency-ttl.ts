/** How long an idempotency record answers for its key: the stage's setting, read at cold start. */
export const DEFAULT_IDEMPOTENCY_TTL_HOURS = 24;
/** The stage setting, on the functions that write records (CDK sets it; locally npm start passes it). */
export const IDEMPOTENCY_TTL_ENV = 'CXM_IDEMPOTENCY_TTL_HOURS';
/** CXM_IDEMPOTENCY_TTL_HOURS, checked: a positive number of hours (fractions allowed), at most a year. */
export function idempotencyTtlMs(raw = process.env[IDEMPOTENCY_TTL_ENV]): number {
  if (raw === undefined || raw === '') return DEFAULT_IDEMPOTENCY_TTL_HOURS * 3_600_000;
  const hours = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(hours > 0) || hours > 24 * 366) {
    throw new Error(`${IDEMPOTENCY_TTL_ENV}=${raw} is not valid; give a number of hours above 0, at most 8784 (fractions allowed).`);
  }
  return Math.round(hours * 3_600_000);
}
