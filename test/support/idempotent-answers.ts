/** How a test tells a first execution of a keyed write from a replay of it. */
import { expect } from 'vitest';
import { REPLAYED_HEADER } from '#shared/http/idempotent-answer';
import type { TestApi } from './test-api.ts';

export type Answer = Awaited<ReturnType<TestApi['call']>>;

/** A request that really ran: its normal answer, not marked as a replay. */
export function expectExecuted(answer: Answer, status: number): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get(REPLAYED_HEADER)).toBeNull();
}

/** A repeat answered from the record of `first`: its status and exact bytes, marked as a replay. */
export function expectReplayOf(replay: Answer, first: Answer): void {
  expect(replay.status, replay.text).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get(REPLAYED_HEADER)).toBe('true');
  // Documents answer with their version's ETag: a replay tells the version the first call wrote.
  expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
}
