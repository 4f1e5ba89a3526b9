/**
 * EventBridge's scheduled rules, locally: each target's schedules send it a "Scheduled Event", as
 * EventBridge does at the rule's rate. `everyMs` replaces every rate (CXM_SCHEDULE_SECONDS, or a
 * test's own), so a schedule of minutes can be seen at work in seconds. The rules `startNow` names
 * also send one at once: a local stack starts where the last one stopped, and what it left for a
 * schedule (the webhook deliveries its queue held in memory) need not wait for the first rate.
 */
import { randomUUID } from 'node:crypto';
import type { EventDelivery, EventTarget } from './deliver-events.ts';
import { LOCAL_ACCOUNT } from './local-identity.ts';

/** The event EventBridge sends a scheduled rule's target. */
export function scheduledEvent(ruleName: string, region: string, now = new Date()) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT,
    time: now.toISOString(),
    region,
    resources: [`arn:aws:events:${region}:${LOCAL_ACCOUNT}:rule/${ruleName}`],
    detail: {},
  };
}

/**
 * Starts every schedule of `targets`; returns the stop.
 *
 * @example const stop = runSchedules(runtime.eventTargets, delivery, { region: 'us-east-1', everyMs: 1000, startNow: [] });
 */
export function runSchedules(
  targets: readonly EventTarget[],
  delivery: EventDelivery,
  options: { region: string; everyMs?: number; startNow?: readonly string[] },
): () => void {
  for (const target of targets)
    for (const schedule of target.schedules)
      if (options.startNow?.includes(schedule.ruleName))
        delivery.deliverTo(target, scheduledEvent(schedule.ruleName, options.region));
  const timers = targets.flatMap((target) =>
    target.schedules.map((schedule) =>
      setInterval(
        () => delivery.deliverTo(target, scheduledEvent(schedule.ruleName, options.region)),
        options.everyMs ?? schedule.everyMs,
      ),
    ),
  );
  for (const timer of timers) timer.unref();
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
