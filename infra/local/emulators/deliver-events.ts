/**
 * EventBridge's part, locally: an event goes to every target whose rule's pattern matches it, as an
 * asynchronous invocation, and a rule on a schedule sends its target a "Scheduled Event" at its
 * rate (run-schedules.ts). A target that throws is invoked again, as Lambda retries an asynchronous
 * event twice; what still fails is reported, where a stage would put it in the function's
 * dead-letter queue. The cloud waits about a minute and then two between attempts; locally a second
 * and then two, so a retried job is seen within a test.
 */
import { matchesEventPattern } from './match-event-pattern.ts';

/** A rule on a schedule (`rate(5 minutes)`), by the name its events carry. */
export interface EventSchedule {
  ruleName: string;
  everyMs: number;
}

export interface EventTarget {
  /** The function's name, for reports. */
  name: string;
  patterns: Record<string, unknown>[];
  schedules: EventSchedule[];
  invoke(event: unknown): Promise<unknown>;
}

export interface EventDelivery {
  /** An event put on the bus: to every target whose patterns match it. */
  put(event: unknown): void;
  /** An event for one target (what a scheduled rule sends). */
  deliverTo(target: EventTarget, event: unknown): void;
  /** Resolves once every event put so far has been delivered or given up on. */
  settled(): Promise<void>;
  /** Whether a delivery is under way. */
  busy(): boolean;
}

export const RETRY_DELAYS_MS = [1000, 2000];

export interface EventDeliveryOptions {
  retryDelaysMs?: readonly number[];
  /**
   * Events the bus loses: EventBridge delivers AWS services' events "on a best-effort basis", and a
   * test uses this to lose one and see the system recover.
   */
  loses?: (event: unknown) => boolean;
}

export function createEventDelivery(
  targets: readonly EventTarget[],
  report: (line: string, error?: unknown) => void,
  options: EventDeliveryOptions = {},
): EventDelivery {
  const retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const inFlight = new Set<Promise<void>>();
  const deliver = async (target: EventTarget, event: unknown) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await target.invoke(event);
        return;
      } catch (error) {
        const delay = retryDelaysMs[attempt];
        if (delay === undefined)
          return report(
            `${target.name}: event ${(event as { id?: string }).id} failed ${attempt + 1} times; a stage would put it in the dead-letter queue`,
            error,
          );
        report(`${target.name}: attempt ${attempt + 1} failed, retrying in ${delay} ms`, error);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  };
  const deliverTo = (target: EventTarget, event: unknown) => {
    const delivery = deliver(target, event).finally(() => inFlight.delete(delivery));
    inFlight.add(delivery);
  };
  return {
    put(event) {
      if (options.loses?.(event)) return;
      for (const target of targets)
        if (target.patterns.some((pattern) => matchesEventPattern(pattern, event))) deliverTo(target, event);
    },
    deliverTo,
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    busy: () => inFlight.size > 0,
  };
}
