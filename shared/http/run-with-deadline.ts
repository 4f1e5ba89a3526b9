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

/** A request under the watch: when its deadline comes, and what it does then. */
interface Watched {
  at: number;
  expire: () => void;
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
  readonly #watched = new Set<Watched>();
  #armedAt = Number.POSITIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  watch(entry: Watched): void {
    this.#watched.add(entry);
    if (entry.at < this.#armedAt) this.#arm(entry.at);
  }

  unwatch(entry: Watched): void {
    this.#watched.delete(entry);
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
    for (const entry of this.#watched) {
      if (entry.at > now) next = Math.min(next, entry.at);
      else {
        this.#watched.delete(entry);
        entry.expire();
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
  const signal = new DeadlineSignal();
  return new Promise<T>((resolve, reject) => {
    let graceTimer: NodeJS.Timeout | undefined;
    const entry: Watched = {
      at: Date.now() + context.getRemainingTimeInMillis() - marginMs,
      expire: () => {
        signal.abort();
        // For work that does not listen to the signal: answer anyway when the grace is up.
        graceTimer = setTimeout(() => reject(gatewayTimeout()), graceMs);
      },
    };
    const settled = () => {
      deadlines.unwatch(entry);
      clearTimeout(graceTimer);
    };
    deadlines.watch(entry);
    // Whatever the work ends with once aborted (the store's "abandoned" error, a thrown abort), the answer is the 504.
    const failed = (error: unknown) => {
      settled();
      reject(signal.aborted ? gatewayTimeout() : error);
    };
    try {
      work(signal).then((value) => {
        settled();
        resolve(value);
      }, failed);
    } catch (error) {
      failed(error);
    }
  });
}
