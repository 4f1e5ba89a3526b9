/**
 * One run of the sweeper of pending deliveries (shared/domain/webhooks/delivery-sweep.ts): each
 * shard of the sweep index read, the deliveries longest due first, a bounded number of pages; the
 * task of each queued with the rest of its wait as delay (none once due), and then its time in the
 * index moved on past the time that task arrives, on condition that neither an attempt nor another
 * sweep moved it since it was read. Queued first: a run cut short between the two leaves the
 * delivery due for the next run, which sends a second task (harmless), never none. What a run does
 * not reach is still due at the next. One shard's or one delivery's error is logged and left to the
 * next run, never the others'.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import {
  DELIVERY_SWEEP_TIMING,
  SWEEP_LIMITS,
  SWEEP_SHARDS,
  type SweepLimits,
  type SweepTiming,
  sweepDelayMs,
  sweptAt,
} from '#shared/domain/webhooks/delivery-sweep';
import type { DeliveryQueue } from '#shared/store/delivery-queue';
import type { SweepCursor, SweptDelivery, WebhookDeliveriesStore } from '#shared/store/webhook-deliveries-store';

export interface SweepDeps {
  deliveries: Pick<WebhookDeliveriesStore, 'dueForSweep' | 'moveSweep'>;
  queue: DeliveryQueue;
  logger: Pick<Logger, 'error'>;
  /** What one run may read; SWEEP_LIMITS unless a test makes them smaller. */
  limits?: SweepLimits;
  /** The queue's longest delay and the sweeper's lead; DELIVERY_SWEEP_TIMING unless a test says otherwise. */
  timing?: SweepTiming;
}

/** What one run did. */
export interface SweepOutcome {
  /** Due deliveries read. */
  found: number;
  /** Of those, the ones whose task was queued. */
  queued: number;
  /** Of those, the ones whose time was moved on (the others were attempted or swept meanwhile). */
  moved: number;
  /** Whether a shard had more due deliveries than the run's pages reached: the next run takes them. */
  more: boolean;
  /** Errors logged: a shard not read to its end, a group not queued, a time not moved. */
  errors: number;
}

/**
 * Queues the tasks of the deliveries due in the sweep index at `nowMs`, and moves each one's time on.
 *
 * @example const outcome = await sweepDeliveries({ deliveries, queue, logger }, Date.now());
 */
export async function sweepDeliveries(deps: SweepDeps, nowMs: number): Promise<SweepOutcome> {
  const limits = deps.limits ?? SWEEP_LIMITS;
  const outcome: SweepOutcome = { found: 0, queued: 0, moved: 0, more: false, errors: 0 };
  const shards = Array.from({ length: SWEEP_SHARDS }, (_, shard) => shard);
  await Promise.all(
    shards.map(async (shard) => {
      let after: SweepCursor | undefined;
      try {
        for (let page = 0; page < limits.pagesPerShard; page++) {
          const read = await deps.deliveries.dueForSweep(shard, nowMs, { limit: limits.pageSize, after });
          outcome.found += read.deliveries.length;
          await sweepPage(deps, read.deliveries, nowMs, outcome);
          after = read.next;
          if (!after) return;
        }
        outcome.more = true;
      } catch (error) {
        outcome.errors++;
        deps.logger.error('a sweep shard was not read to its end; the next sweep goes on', { shard, error });
      }
    }),
  );
  return outcome;
}

/**
 * Queues the page's tasks, those of one delay together (SQS gives a batch one delay per entry, the
 * queue port one per send), then moves on the time of each one queued.
 */
async function sweepPage(
  deps: SweepDeps,
  page: readonly SweptDelivery[],
  nowMs: number,
  outcome: SweepOutcome,
): Promise<void> {
  const timing = deps.timing ?? DELIVERY_SWEEP_TIMING;
  const dueOf = (delivery: SweptDelivery) =>
    delivery.nextAttemptAt === undefined ? nowMs : Date.parse(delivery.nextAttemptAt);
  const byDelay = new Map<number, SweptDelivery[]>();
  for (const delivery of page) {
    // Whole seconds: what SQS counts a delay in, so deliveries due within one second go together.
    const seconds = Math.ceil(sweepDelayMs(dueOf(delivery), nowMs, timing) / 1000);
    byDelay.set(seconds, [...(byDelay.get(seconds) ?? []), delivery]);
  }
  const sent = await Promise.all(
    [...byDelay].map(async ([seconds, group]) => {
      try {
        await deps.queue.send(
          group.map(({ tenantId, key }) => ({ tenantId, key })),
          seconds * 1000,
        );
        return group;
      } catch (error) {
        outcome.errors++;
        deps.logger.error('the queue refused swept tasks; the next sweep sends them', { count: group.length, error });
        return [];
      }
    }),
  );
  const queued = sent.flat();
  outcome.queued += queued.length;
  const moves = await Promise.allSettled(
    queued.map((delivery) =>
      deps.deliveries.moveSweep(delivery.tenantId, delivery.key, delivery, sweptAt(dueOf(delivery), nowMs)),
    ),
  );
  for (const move of moves) {
    if (move.status === 'fulfilled') outcome.moved += move.value ? 1 : 0;
    else {
      outcome.errors++;
      deps.logger.error('a swept delivery kept its time; the next sweep sends its task again', { error: move.reason });
    }
  }
}
