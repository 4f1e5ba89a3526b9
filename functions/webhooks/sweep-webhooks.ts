/**
 * The webhooks' sweeper (its EventBridge schedule, shared/webhook-functions.ts): each run queues the
 * tasks of the pending deliveries whose time in the sweep index has come, a task lost or a wait
 * longer than the queue's longest delay (shared/webhooks/sweep-deliveries.ts), wired to this
 * stage's store and queue. A run that met errors (each logged, the rest of the run done) ends in
 * one, so the function's Errors metric and its alarm show a sweeper that keeps failing; the
 * schedule has no retries, the next run takes over.
 */
import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '#shared/http/logger';
import { webhookDeliveriesStore, webhookDeliveryQueue } from '#shared/store/function-stores';
import { type SweepOutcome, sweepDeliveries } from '#shared/webhooks/sweep-deliveries';

const deps = { deliveries: webhookDeliveriesStore(), queue: webhookDeliveryQueue(), logger };

export async function handler(_event: ScheduledEvent): Promise<SweepOutcome> {
  const outcome = await sweepDeliveries(deps, Date.now());
  if (outcome.errors > 0)
    throw new Error(`the sweep met ${outcome.errors} errors (logged above); the next run takes what is left`);
  return outcome;
}
