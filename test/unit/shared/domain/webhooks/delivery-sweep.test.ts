/** When the sweeper acts on a pending delivery, what delay it queues a task with, and where it moves it. */
import { describe, expect, it } from 'vitest';
import {
  DELIVERY_SWEEP_TIMING,
  LOST_TASK_GRACE_MS,
  MAX_QUEUE_DELAY_SECONDS,
  queueCarries,
  SWEEP_SHARDS,
  sweepAtOf,
  sweepDelayMs,
  sweepShardOf,
  sweptAt,
  WEBHOOK_SWEEP_MINUTES,
} from '#shared/domain/webhooks/delivery-sweep';
import { RETRY_SCHEDULE_MS } from '#shared/domain/webhooks/retry-schedule';

const now = Date.parse('2026-11-27T08:00:00.000Z');
const MINUTE = 60_000;
const timing = DELIVERY_SWEEP_TIMING;

describe('the timing', () => {
  it("is the queue's longest delay, and a lead longer than the sweep interval but shorter than that delay", () => {
    expect(timing.maxQueueDelayMs).toBe(MAX_QUEUE_DELAY_SECONDS * 1000);
    expect(timing.leadMs).toBeGreaterThan(WEBHOOK_SWEEP_MINUTES * MINUTE);
    expect(timing.leadMs).toBeLessThan(timing.maxQueueDelayMs);
  });

  it("leaves the schedule's steps of 30 minutes and more to the sweeper, and queues the shorter ones", () => {
    expect(RETRY_SCHEDULE_MS.map((wait) => queueCarries(wait, timing))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(queueCarries(timing.maxQueueDelayMs, timing)).toBe(true);
    expect(queueCarries(timing.maxQueueDelayMs + 1, timing)).toBe(false);
  });
});

describe('sweepAtOf', () => {
  it('a wait a task carries: its time plus the grace, past which the task is presumed lost', () => {
    expect(sweepAtOf(now, now, timing)).toBe(now + LOST_TASK_GRACE_MS);
    expect(sweepAtOf(now + 5 * MINUTE, now, timing)).toBe(now + 5 * MINUTE + LOST_TASK_GRACE_MS);
  });

  it('a wait no task carries: its time less the lead', () => {
    expect(sweepAtOf(now + 2 * 60 * MINUTE, now, timing)).toBe(now + 2 * 60 * MINUTE - timing.leadMs);
  });
});

describe('what a sweep does with a due delivery', () => {
  it('queues its task with the rest of its wait, none once due, at most the queue allows', () => {
    expect(sweepDelayMs(now + timing.leadMs, now, timing)).toBe(timing.leadMs);
    expect(sweepDelayMs(now - 60 * MINUTE, now, timing)).toBe(0);
    expect(sweepDelayMs(now + 60 * MINUTE, now, timing)).toBe(timing.maxQueueDelayMs);
  });

  it('moves it to the grace past when that task arrives', () => {
    expect(sweptAt(now + timing.leadMs, now)).toBe(now + timing.leadMs + LOST_TASK_GRACE_MS);
    // Overdue (its task was lost): the new task arrives now, so the next sweeps leave it for an hour.
    expect(sweptAt(now - 3 * 60 * MINUTE, now)).toBe(now + LOST_TASK_GRACE_MS);
  });
});

describe('sweepShardOf', () => {
  it('is the same for a key each time, one of the shards, and spreads one endpoint over them all', () => {
    const keys = Array.from({ length: 400 }, (_, index) => `2026-11-27T08:00:00.000Z#msg_${index}`);
    const shards = keys.map((sk) => sweepShardOf('acme#ep_1', sk));
    expect(keys.map((sk) => sweepShardOf('acme#ep_1', sk))).toEqual(shards);
    expect(shards.every((shard) => Number.isInteger(shard) && shard >= 0 && shard < SWEEP_SHARDS)).toBe(true);
    const counts = Array.from({ length: SWEEP_SHARDS }, (_, shard) => shards.filter((s) => s === shard).length);
    // 50 each on average: none empty, none holding a third.
    for (const count of counts) expect(count).toBeGreaterThan(20);
    for (const count of counts) expect(count).toBeLessThan(400 / 3);
  });
});
