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

export async function runWithDeadline<T>(
  context: Context,
  { marginMs, graceMs }: { marginMs: number; graceMs: number },
  work: (signal: OneSlotAbortSignal) => Promise<T>,
): Promise<T> {
  if (typeof context?.getRemainingTimeInMillis !== 'function') return work(NEVER_ABORTED);
  const signal = new DeadlineSignal();
  // Whatever the work ends with once aborted (the store's "abandoned" error, a thrown abort), the answer is the 504.
  const outcome = work(signal).catch((error: unknown) => {
    throw signal.aborted ? gatewayTimeout() : error;
  });
  let deadlineTimer: NodeJS.Timeout | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    deadlineTimer = setTimeout(
      () => {
        signal.abort();
        // For work that does not listen to the signal: answer anyway when the grace is up.
        graceTimer = setTimeout(() => reject(gatewayTimeout()), graceMs);
      },
      Math.max(0, context.getRemainingTimeInMillis() - marginMs),
    );
  });
  try {
    return await Promise.race([outcome, deadline]);
  } finally {
    clearTimeout(deadlineTimer);
    clearTimeout(graceTimer);
  }
}
