/**
 * When a delivery is tried again, and when it stops: Standard Webhooks' example schedule in Svix's
 * version (at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: eight attempts over
 * about 27 hours). A receiver's `Retry-After` can only make an attempt later, never earlier, and no
 * later than the schedule's longest step; a 410 Gone disables the endpoint at once; an endpoint whose
 * deliveries have failed for 5 days is disabled too, with the reason.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait before each attempt, the first included (0: at once). */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/** How long an endpoint may fail every delivery before it is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR;

/** What one attempt came to. */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'gone' }
  | {
      kind: 'failed';
      /** What the deliveries list shows: the status, or what happened instead of one. */
      reason: string;
      status?: number;
      /** The receiver's `Retry-After`, in ms from the attempt. */
      retryAfterMs?: number;
    };

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** What to do after an attempt. */
export type NextStep =
  | { kind: 'done' }
  | { kind: 'disable-endpoint'; reason: string }
  | { kind: 'retry'; afterMs: number }
  | { kind: 'give-up'; reason: string };

/**
 * The step after the `attempts`-th attempt (1 for the first) ended in `outcome`, on `schedule`
 * (RETRY_SCHEDULE_MS, or a shorter one a local stage chooses).
 *
 * @example nextStep(1, { kind: 'failed', reason: 'HTTP 500', status: 500 }) // { kind: 'retry', afterMs: 5000 }
 */
export function nextStep(
  attempts: number,
  outcome: AttemptOutcome,
  schedule: readonly number[] = RETRY_SCHEDULE_MS,
): NextStep {
  if (outcome.kind === 'delivered') return { kind: 'done' };
  if (outcome.kind === 'gone')
    return { kind: 'disable-endpoint', reason: 'the receiver answered 410 Gone: it no longer takes these events' };
  const scheduled = schedule[attempts];
  if (scheduled === undefined)
    return { kind: 'give-up', reason: `${attempts} attempts failed, the last with ${outcome.reason}` };
  const longest = Math.max(...schedule);
  const asked = Math.min(outcome.retryAfterMs ?? 0, longest);
  return { kind: 'retry', afterMs: Math.max(scheduled, asked) };
}

/**
 * A `Retry-After` value (RFC 9110: delay seconds, or an HTTP date) as ms after `now`; undefined
 * when it is absent or unreadable.
 *
 * @example parseRetryAfter('120', Date.now()) // 120000
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * SECOND;
  // An HTTP date is IMF-fixdate (`Fri, 27 Nov 2026 02:01:00 GMT`); Date.parse alone would read far more.
  if (!IMF_FIXDATE.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Whether an endpoint that has failed every delivery since `failingSince` is disabled at `now`.
 *
 * @example endpointFailedTooLong(Date.parse('2026-11-20T00:00:00Z'), Date.parse('2026-11-26T00:00:00Z')) // true
 */
export function endpointFailedTooLong(failingSince: number | undefined, now: number): boolean {
  return failingSince !== undefined && now - failingSince >= DISABLE_AFTER_FAILING_MS;
}

/**
 * An answer this slow holds one of the stage's shared delivery slots for as long: Standard
 * Webhooks asks receivers to answer 2xx at once and do their work after.
 */
export const SLOW_ANSWER_MS = 5_000;
/**
 * Slow answers in a row after which an endpoint is paused (disabled, saying why): one tenant's
 * slow receiver does not keep taking the capacity every tenant's deliveries share.
 */
export const SLOW_ANSWERS_BEFORE_PAUSE = 20;

/** How slow answers are judged: the stage's, or a test's shorter ones. */
export interface SlowAnswerRule {
  answerMs: number;
  inARow: number;
}

/**
 * Why an endpoint whose receiver answered slowly `inARow` times in a row is paused, or undefined.
 *
 * @example slowAnswersPause(20, { answerMs: 5_000, inARow: 20 }) // 'its receiver took 5 s or more to answer 20 attempts in a row...'
 */
export function slowAnswersPause(slowAnswers: number | undefined, rule: SlowAnswerRule): string | undefined {
  return slowAnswers !== undefined && slowAnswers >= rule.inARow
    ? `its receiver took ${rule.answerMs / 1000} s or more to answer ${rule.inARow} attempts in a row: answer 2xx at once and do the work after, then enable it`
    : undefined;
}
