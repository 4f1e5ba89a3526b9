/**
 * A key's tag: a MAC only this stage can compute, so the authorizer refuses a made-up key before
 * any store read (functions/authorizer.ts). It is HMAC-SHA256 under the stage's key-tag secret over
 * the rest of the key (`cxm_<keyId>_<secret>`), the first 8 bytes of the MAC read as an unsigned
 * 64-bit integer, reduced modulo 62^8 and written as 8 base62 digits (2^64 is 84 486 times 62^8,
 * so no tag is likelier than another by more than 1 in 84 000). A public checksum (GitHub's CRC32)
 * catches typos but anyone can compute it; an HMAC only the secret's holder can.
 *
 * Why 8 characters. A forged token passes with probability 62^-8 = 4.6e-15 (47.6 bits). A token
 * that passes still costs only its one read (the key is unknown: 401), but its finder could replay
 * it, a read each time; so what matters is the work to find one. Every token reaching the
 * authorizer passes API Gateway's throttle of the account and region, 10 000 requests a second by
 * default (a web ACL holds one address to about 333 a second). At that whole rate, finding one
 * passing token takes on average 62^n / 10 000 seconds:
 *
 * | n | forgery chance per token | time to find one at 10 000/s | key length |
 * |---|---|---|---|
 * | 6 | 1.8e-11 | 66 days | 64 |
 * | 7 | 2.8e-13 | 11 years | 65 |
 * | 8 | 4.6e-15 | 690 years | 66 |
 * | 10 | 1.2e-18 | 2.7 million years | 68 |
 *
 * Six would let a determined attacker with the account's whole throughput find a replayable token
 * within a quarter; eight puts it out of reach for good, for two characters more on a key of 66.
 * More buys nothing a caller could notice.
 *
 * Verification compares with `timingSafeEqual` and tries every accepted secret (the current one
 * and the one a rotation replaced), so its time tells nothing about how close a guess came.
 */
import { type KeyObject, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from '#shared/domain/hmac-sha256';
import { base62Digits } from './base62.ts';

/** Characters of a tag: see the reasoning above. */
export const KEY_TAG_LENGTH = 8;

/**
 * The tag of `body` (a key without its tag) under `secret`: a string, or its KeyObject (`hmacKey`)
 * where one secret checks many tags.
 *
 * @example
 * keyTag('the stage secret', 'cxm_k1abcdefghij_' + 'A'.repeat(40)); // 8 base62 characters, e.g. 'q3ZtC0aL'
 */
export function keyTag(secret: string | KeyObject, body: string): string {
  const mac = hmacSha256(secret).update(body, 'utf8').digest();
  return base62Digits(mac.readBigUInt64BE(0), KEY_TAG_LENGTH);
}

/**
 * Whether `tag` is the tag of `body` under one of `secrets`, in time independent of where a wrong
 * tag differs. A tag of the wrong length never matches.
 *
 * @example
 * const tag = keyTag(previous, body);
 * verifyKeyTag([current, previous], body, tag); // true: a key tagged before the last rotation
 * verifyKeyTag([current], body, tag); // false: the secret it was tagged under is gone
 */
export function verifyKeyTag(secrets: readonly (string | KeyObject)[], body: string, tag: string): boolean {
  const given = Buffer.from(tag, 'utf8');
  let matched = false;
  for (const secret of secrets) {
    const expected = Buffer.from(keyTag(secret, body), 'utf8');
    // Every secret is tried, a match or not: the time taken does not say which secret matched.
    matched = (given.length === expected.length && timingSafeEqual(given, expected)) || matched;
  }
  return matched;
}
