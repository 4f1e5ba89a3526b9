/**
 * The chain's own deadline, per invocation. `work` gets a signal of its own (deadline-signal.ts), aborted
 * `marginMs` before the function's deadline; the store calls listening to it stop there (and the
 * SDK retries nothing after an abort). The invocation then answers 504 GatewayTimeout once the
 * aborted work has ended, or after `graceMs` at the latest, so that nothing the work started can
 * commit after the answer has left; the grace stays inside the margin, before Lambda's own kill.
 *
 * Not middy's timeoutEarly: middy 6 hands every invocation of a process one shared AbortController
 * (in the local gateway's source mode, where invocations run side by side, one request reaching its
 * deadline would abort the others' store calls), and middy 7, which scopes it per request, answers
 * the moment the deadline comes, while the aborted work may still commit.
 */

import type { AbortSignal as OneSlotAbortSignal } from '@smithy/types';
import type { Context } from 'aws-lambda';
import { gatewayTimeout } from '#shared/api/api-error';
import { DeadlineSignal, NEVER_ABORTED } from './deadline-signal.ts';

/**
 * One request's deadline under the watch: when it comes, and what it does then. A class, not
 * closures made per request: bundled with keepNames, every named closure a request makes costs a
 * call that names it.
 */
class Deadline {
  readonly signal = new DeadlineSignal();
  readonly at: number;
  readonly #graceMs: number;
  readonly #reject: (error: unknown) => void;
  #graceTimer: NodeJS.Timeout | undefined;

  constructor(at: number, graceMs: number, reject: (error: unknown) => void) {
    this.at = at;
    this.#graceMs = graceMs;
    this.#reject = reject;
  }

  /** Aborts the work's signal; for work that does not listen to it, answers anyway when the grace is up. */
  expire(): void {
    this.signal.abort();
    this.#graceTimer = setTimeout(() => this.#reject(gatewayTimeout()), this.#graceMs);
  }

  /** The work ended: off the watch, and no grace left to wait for. */
  settle(): void {
    deadlines.unwatch(this);
    clearTimeout(this.#graceTimer);
  }

  /** The work failed: once aborted, whatever it ends with (the store's "abandoned" error, a thrown abort) is the 504. */
  fail(error: unknown): void {
    this.settle();
    this.#reject(this.signal.aborted ? gatewayTimeout() : error);
  }
}

/**
 * One timer for every request of the process, armed for the earliest deadline watched, not a timer
 * set and cleared per request: a request's own timer, and the race against it, cost a warm request
 * more than any other part of the chain (the bench's warm section). A request whose
 * deadline is later than the armed one arms nothing; the timer, when it fires, expires what is due
 * and arms for the earliest deadline left. It is unref'd: what a request waits on (a socket, the
 * runtime's next-invocation call) keeps the process alive, not the watch.
 */
class DeadlineWatch {
  readonly #watched = new Set<Deadline>();
  #armedAt = Number.POSITIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  watch(deadline: Deadline): void {
    this.#watched.add(deadline);
    if (deadline.at < this.#armedAt) this.#arm(deadline.at);
  }

  unwatch(deadline: Deadline): void {
    this.#watched.delete(deadline);
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - Date.now()));
    this.#timer.unref();
  }

  #fire(): void {
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const deadline of this.#watched) {
      if (deadline.at > now) next = Math.min(next, deadline.at);
      else {
        this.#watched.delete(deadline);
        deadline.expire();
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }
}

const deadlines = new DeadlineWatch();

export function runWithDeadline<T>(
  context: Context,
  { marginMs, graceMs }: { marginMs: number; graceMs: number },
  work: (signal: OneSlotAbortSignal) => Promise<T>,
): Promise<T> {
  if (typeof context?.getRemainingTimeInMillis !== 'function') return work(NEVER_ABORTED);
  return new Promise<T>((resolve, reject) => {
    const deadline = new Deadline(Date.now() + context.getRemainingTimeInMillis() - marginMs, graceMs, reject);
    deadlines.watch(deadline);
    try {
      work(deadline.signal).then(
        (value) => {
          deadline.settle();
          resolve(value);
        },
        (error: unknown) => deadline.fail(error),
      );
    } catch (error) {
      deadline.fail(error);
    }
  });
}
