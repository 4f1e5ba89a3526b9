/**
 * When the sweeper of pending deliveries acts on each one (shared/webhooks/sweep-deliveries.ts).
 * A pending delivery names, in a sparse index of the deliveries table, the time the sweeper must
 * act on it:
 * - its next attempt is within the queue's longest delay, and a task carries it: that time plus a
 *   grace, past which the task is presumed lost (the queue's retention passed under a backlog, a
 *   local stack stopped with tasks in its memory, a recover's undo failed) and the sweeper queues
 *   another;
 * - its next attempt is further off than any queue delay: no task carries it, and the sweeper
 *   queues one a lead before its time, with the rest of the wait as the task's delay.
 * Delivered and failed deliveries are not in the index. A second task of one delivery is harmless
 * (deliver-message.ts posts only once it has claimed the delivery, and records one attempt per read
 * of it), so where in doubt the sweeper sends one. Each index item is in one of a few shards, by a
 * hash of its key, so that a burst of one endpoint's deliveries makes no single index partition hot.
 */
import { createHash } from 'node:crypto';

const MINUTE = 60_000;

/** The index's partitions: a sweep reads each, and a burst of writes spreads over them. */
export const SWEEP_SHARDS = 8;

/**
 * How long past its due time a delivery whose task carries it waits for an attempt before the task
 * is presumed lost. A task in a healthy queue is taken within seconds of its time (an attempt lasts
 * 15 s at most), so an hour sends a second task for one still on its way only when the queue is far
 * behind, where it costs one more read of the delivery; and a lost task makes its delivery an hour
 * late, not pending forever.
 */
export const LOST_TASK_GRACE_MS = 60 * MINUTE;

/** Deliveries one query of a shard reads (its keys, attempts and times: the index projects no more). */
export const SWEEP_PAGE_SIZE = 100;
/**
 * Pages one run reads from each shard. A run handles at most SWEEP_SHARDS x SWEEP_PAGES_PER_SHARD x
 * SWEEP_PAGE_SIZE deliveries (2 400): the shards side by side, each page one write per delivery and
 * a send per ten, a few seconds in all, well within the function's timeout. What is left is still
 * due at the next run, oldest first.
 */
export const SWEEP_PAGES_PER_SHARD = 3;

/** What one run may read (a test makes them smaller). */
export interface SweepLimits {
  pageSize: number;
  pagesPerShard: number;
}

export const SWEEP_LIMITS: SweepLimits = { pageSize: SWEEP_PAGE_SIZE, pagesPerShard: SWEEP_PAGES_PER_SHARD };

/** The queue's and the sweeper's times the rules below are decided by. */
export interface SweepTiming {
  /** The longest delay the queue gives one message. */
  maxQueueDelayMs: number;
  /** How long before its time the sweeper queues the task of a wait no task carries. */
  leadMs: number;
}

/**
 * The longest delay a queue gives one message (SQS: 15 minutes): a longer step of the schedule is
 * carried by no task, and the sweeper queues one near its time (shared/webhook-functions.ts); a task early for
 * its attempt all the same is queued again for the rest, in hops (shared/webhooks/deliver-message.ts).
 */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/**
 * How often the sweeper runs, in minutes (an EventBridge rate): how late a wait of more than the
 * queue's longest delay may be queued, with one run missed, is twice this (the lead below).
 */
export const WEBHOOK_SWEEP_MINUTES = 1;

/**
 * The queue's longest delay, and the sweeper's lead: two of its intervals, so a wait no task carries
 * is queued on time even when one run failed or stopped at its page cap before reaching it.
 */
export const DELIVERY_SWEEP_TIMING: SweepTiming = {
  maxQueueDelayMs: MAX_QUEUE_DELAY_SECONDS * 1000,
  leadMs: 2 * WEBHOOK_SWEEP_MINUTES * 60_000,
};

/**
 * The shard of the delivery at table key `pk`/`sk`: the same for every write of it.
 *
 * @example sweepShardOf('acme#ep_1', '2026-11-27T08:00:00.000Z#msg_x') // an integer from 0 to SWEEP_SHARDS - 1
 */
export function sweepShardOf(pk: string, sk: string): number {
  return createHash('sha256').update(`${pk}\n${sk}`).digest().readUInt32BE(0) % SWEEP_SHARDS;
}

/**
 * Whether a task queued now can carry a wait of `waitMs`; a longer one is left to the sweeper.
 *
 * @example queueCarries(5 * 60_000, timing) // true: within SQS's 15 minutes
 */
export function queueCarries(waitMs: number, timing: SweepTiming): boolean {
  return waitMs <= timing.maxQueueDelayMs;
}

/**
 * When the sweeper acts on a pending delivery whose next attempt is due at `dueMs` (epoch ms), as
 * decided at `fromMs`, when its task was queued or left to the sweeper.
 *
 * @example sweepAtOf(now + 2 * 3_600_000, now, timing) // now + 2 h - the lead: no task carries a wait of 2 h
 */
export function sweepAtOf(dueMs: number, fromMs: number, timing: SweepTiming): number {
  return queueCarries(dueMs - fromMs, timing) ? dueMs + LOST_TASK_GRACE_MS : dueMs - timing.leadMs;
}

/**
 * The delay of the task the sweeper queues at `nowMs` for an attempt due at `dueMs`: the rest of the
 * wait, none once it is due, at most the queue's longest (a task early all the same waits the rest
 * in hops: deliver-message.ts).
 *
 * @example sweepDelayMs(now + 90_000, now, timing) // 90000
 */
export function sweepDelayMs(dueMs: number, nowMs: number, timing: SweepTiming): number {
  return Math.min(timing.maxQueueDelayMs, Math.max(0, dueMs - nowMs));
}

/**
 * Where the sweeper moves a delivery it has queued a task for at `nowMs`: the grace past the time
 * the task arrives, so the next sweeps leave it to that task.
 *
 * @example sweptAt(now - 3_600_000, now) // now + LOST_TASK_GRACE_MS: an overdue attempt's task arrives at once
 */
export function sweptAt(dueMs: number, nowMs: number): number {
  return Math.max(dueMs, nowMs) + LOST_TASK_GRACE_MS;
}
