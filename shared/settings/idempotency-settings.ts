/** How long an idempotency record answers for its key: the stage's setting, read at cold start. */
import { FUNCTION_ENV } from './setting-names.ts';
export const DEFAULT_IDEMPOTENCY_TTL_HOURS = 24;
/** CXM_IDEMPOTENCY_TTL_HOURS, checked: a positive number of hours (fractions allowed), at most a year. */
export function idempotencyTtlMs(raw = process.env[FUNCTION_ENV.idempotencyTtlHours]): number {
  if (raw === undefined || raw === '') return DEFAULT_IDEMPOTENCY_TTL_HOURS * 3_600_000;
  const hours = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(hours > 0) || hours > 24 * 366) {
    throw new Error(
      `${FUNCTION_ENV.idempotencyTtlHours}=${raw} is not valid; give a number of hours above 0, at most 8784 (fractions allowed).`,
    );
  }
  return Math.round(hours * 3_600_000);
}
