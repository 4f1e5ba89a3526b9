/**
 * A ULID (time-ordered: a conversation's notes, a tenant's jobs sort by creation), its 80 random
 * bits drawn from a pool of CSPRNG bytes. The ulid package's own default detects the PRNG afresh
 * on every call and then makes one `crypto.getRandomValues` call per character: 34-41 µs per id on
 * Node 20 and 24 here, more than the whole chain's overhead goal. The same source
 * (`randomFillSync`) read 4 KiB at a time costs well under a microsecond per id.
 * The pool is filled on first use, not at import, so nothing random is decided during init.
 */
import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

const pool = new Uint8Array(4096);
let next = pool.length;

/** ulid's PRNG contract: a number in [0, 1); a whole byte over 256 maps evenly onto its 32 characters. */
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

export function newUlid(timeMs: number): string {
  return ulid(timeMs, pooledRandom);
}
