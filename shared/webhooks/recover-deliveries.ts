/**
 * A recover of an endpoint's failed deliveries: its partition read from `since`, oldest first, and
 * each failed delivery made pending again with its schedule started over, in groups, each group's
 * tasks queued before the next group is touched. So a call cut short (its deadline, a store or
 * queue failure) leaves no delivery pending without a task: a pending delivery nothing will send
 * would be out of every later recover's reach, which takes only failed ones. A task too many is
 * harmless (deliver-message.ts leaves alone a delivery no longer pending).
 *
 * Bounded (recover-limits.ts): at most `maxPages` pages read and `maxRecovered` deliveries made
 * pending per call; the answer says where to go on from.
 */
import { RECOVER_LIMITS, type RecoverLimits } from '#shared/domain/webhooks/recover-limits';
import { type DeliveryKey, deliverySortKey } from '#shared/domain/webhooks/webhook-delivery';
import type { DeliveryQueue } from '#shared/store/delivery-queue';
import type { StopSignal } from '#shared/store/stop-signal';
import { StoreUnavailableError } from '#shared/store/store-unavailable-error';
import type { DeliveryState, WebhookDeliveriesStore } from '#shared/store/webhook-deliveries-store';

export interface RecoverDeps {
  deliveries: WebhookDeliveriesStore;
  queue: DeliveryQueue;
  /** What one call may do; RECOVER_LIMITS unless a test makes them smaller. */
  limits?: RecoverLimits;
}

/** What one call did, and where the next goes on from. */
export interface RecoverOutcome {
  /** Deliveries made pending again, each with its task queued. */
  recovered: number;
  /** Deliveries read, failed or not. */
  read: number;
  /** Whether the call stopped at a limit before the end of the partition. */
  more: boolean;
  /** The `since` of the next call while `more`: the event time of the last delivery read. */
  nextSince: string | null;
}

interface Progress {
  recovered: number;
  read: number;
  /** The last delivery read. */
  last?: DeliveryKey;
}

/**
 * Recovers `tenantId`'s deliveries to `endpointId` of events at or after `since` that failed.
 *
 * @example const outcome = await recoverDeliveries({ deliveries, queue }, 'acme', 'ep_1', '2026-01-02T08:00:00.000Z', signal);
 */
export async function recoverDeliveries(
  deps: RecoverDeps,
  tenantId: string,
  endpointId: string,
  since: string,
  signal?: StopSignal,
): Promise<RecoverOutcome> {
  const limits = deps.limits ?? RECOVER_LIMITS;
  const progress: Progress = { recovered: 0, read: 0 };
  for (let page = 0; page < limits.maxPages; page++) {
    const after = progress.last && deliverySortKey(progress.last);
    const read = await deps.deliveries.readSince(tenantId, endpointId, {
      since,
      after,
      limit: limits.pageSize,
      signal,
    });
    const complete = await recoverPage(deps, limits, tenantId, read.deliveries, progress, signal);
    if (!complete) return outcome(progress, true);
    if (!read.more) return outcome(progress, false);
  }
  return outcome(progress, true);
}

const outcome = ({ recovered, read, last }: Progress, more: boolean): RecoverOutcome => ({
  recovered,
  read,
  more,
  nextSince: more && last ? last.at : null,
});

/**
 * Reads through one page, reopening its failed deliveries a group at a time: false when the call's
 * most recovered was reached before the page's end.
 */
async function recoverPage(
  deps: RecoverDeps,
  limits: RecoverLimits,
  tenantId: string,
  page: readonly DeliveryState[],
  progress: Progress,
  signal?: StopSignal,
): Promise<boolean> {
  let group: DeliveryState[] = [];
  for (const delivery of page) {
    if (progress.recovered === limits.maxRecovered) return false;
    progress.read++;
    progress.last = delivery;
    if (delivery.status === 'failed') group.push(delivery);
    if (group.length === Math.min(limits.groupSize, limits.maxRecovered - progress.recovered)) {
      progress.recovered += await reopenGroup(deps, tenantId, group, signal);
      group = [];
    }
  }
  if (group.length > 0) progress.recovered += await reopenGroup(deps, tenantId, group, signal);
  return progress.recovered < limits.maxRecovered || page.length === 0;
}

/** What a reopen came to: pending now, taken by another recover, or not known (it threw: `error`). */
type Reopened =
  | { delivery: DeliveryState; kind: 'pending' | 'taken' }
  | { delivery: DeliveryState; kind: 'unknown'; error: unknown };

async function reopen(
  deps: RecoverDeps,
  tenantId: string,
  delivery: DeliveryState,
  signal?: StopSignal,
): Promise<Reopened> {
  try {
    return { delivery, kind: (await deps.deliveries.reopen(tenantId, keyOf(delivery), signal)) ? 'pending' : 'taken' };
  } catch (error) {
    return { delivery, kind: 'unknown', error };
  }
}

/**
 * Makes the group pending again and queues its tasks: how many were failed and are pending now. A
 * reopen that threw may have been written all the same (an abort at the deadline ends the wait,
 * not the write), so its task is queued too; when the queue refuses the group, the group is made
 * failed again before the error goes on, so that none stays pending without a task.
 */
async function reopenGroup(
  deps: RecoverDeps,
  tenantId: string,
  group: readonly DeliveryState[],
  signal?: StopSignal,
): Promise<number> {
  if (signal?.aborted) throw new StoreUnavailableError('recover stopped at the deadline');
  const reopened = await Promise.all(group.map((delivery) => reopen(deps, tenantId, delivery, signal)));
  const queued = reopened.filter(({ kind }) => kind !== 'taken').map(({ delivery }) => delivery);
  try {
    // Sent even past the deadline: within the grace the chain gives aborted work, before the 504 leaves.
    await deps.queue.send(
      queued.map((delivery) => ({ tenantId, key: keyOf(delivery) })),
      0,
    );
  } catch (error) {
    await Promise.allSettled(
      queued.map((delivery) => deps.deliveries.undoReopen(tenantId, keyOf(delivery), delivery.attempts)),
    );
    throw error;
  }
  for (const result of reopened) if (result.kind === 'unknown') throw result.error;
  return reopened.filter(({ kind }) => kind === 'pending').length;
}

const keyOf = ({ endpointId, at, messageId }: DeliveryKey): DeliveryKey => ({ endpointId, at, messageId });
