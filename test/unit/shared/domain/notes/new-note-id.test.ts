/** Note ids: ULIDs of the note's time, with random parts that do not repeat across pool refills. */
import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { newNoteId } from '#shared/domain/notes/new-note-id';

describe('newNoteId', () => {
  it('is a ULID of the given time', () => {
    const at = Date.parse('2026-11-24T03:00:00.123Z');
    const id = newNoteId(at);
    expect(isValid(id)).toBe(true);
    expect(decodeTime(id)).toBe(at);
  });

  it('never repeats in one millisecond, across many refills of its pool, and uses every character', () => {
    const at = Date.now();
    // 16 random characters an id, 4 096 pooled bytes: 20 000 ids refill the pool 78 times.
    const ids = Array.from({ length: 20_000 }, () => newNoteId(at));
    expect(new Set(ids).size).toBe(ids.length);
    const randomParts = ids.map((id) => id.slice(10));
    expect(new Set(randomParts).size).toBe(ids.length);
    // Each of Crockford's 32 characters appears at every random position (a stuck or biased
    // source would leave some out: 20 000 draws make a miss about 1e-270 likely).
    for (let position = 0; position < 16; position++) {
      expect(new Set(randomParts.map((part) => part[position])).size, `position ${position}`).toBe(32);
    }
  });
});
