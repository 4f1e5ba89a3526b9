/**
 * EventBridge's part, locally: an event goes to every target whose rule's pattern matches it, as an
 * asynchronous invocation. A target that throws is invoked again, as Lambda retries an asynchronous
 * event twice; what still fails is reported, where a stage would put it in the function's
 * dead-letter queue. The cloud waits about a minute and then two between attempts; locally a second
 * and then two, so a retried job is seen within a test.
 */
import { matchesEventPattern } from './match-event-pattern.ts';

export interface EventTarget {
  /** The function's name, for reports. */
  name: string;
  patterns: Record<string, unknown>[];
  invoke(event: unknown): Promise<unknown>;
}

export interface EventDelivery {
  put(event: unknown): void;
  /** Resolves once every event put so far has been delivered or given up on. */
  settled(): Promise<void>;
}

export const RETRY_DELAYS_MS = [1000, 2000];

export function createEventDelivery(targets: readonly EventTarget[], report: (line: string, error?: unknown) => void, retryDelaysMs = RETRY_DELAYS_MS): EventDelivery {
  const inFlight = new Set<Promise<void>>();
  const deliver = async (target: EventTarget, event: unknown) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await target.invoke(event);
        return;
      } catch (error) {
        const delay = retryDelaysMs[attempt];
        if (delay === undefined) return report(`${target.name}: event ${(event as { id?: string }).id} failed ${attempt + 1} times; a stage would put it in the dead-letter queue`, error);
        report(`${target.name}: attempt ${attempt + 1} failed, retrying in ${delay} ms`, error);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  };
  return {
    put(event) {
      for (const target of targets) {
        if (!target.patterns.some((pattern) => matchesEventPattern(pattern, event))) continue;
        const delivery = deliver(target, event).finally(() => inFlight.delete(delivery));
        inFlight.add(delivery);
      }
    },
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
