/**
 * A key's tag (shared/auth/key-tag.ts): 8 base62 characters of an HMAC-SHA256 under the stage's
 * secret, verified against the current and the previous secret in constant time. How the tag spares
 * a read is proven over HTTP in test/integration/key-tags and untagged-keys-refused.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { base62Digits } from '#shared/auth/base62';
import { generateKey, parseKey } from '#shared/auth/key-format';
import { KEY_TAG_LENGTH, keyTag, verifyKeyTag } from '#shared/auth/key-tag';
import { hmacKey } from '#shared/domain/hmac-sha256';

// Spied on, still the real comparison: the tests see every call verifyKeyTag makes.
const timingSafeEqual = vi.hoisted(() => ({ calls: [] as Array<[Buffer, Buffer]> }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      timingSafeEqual.calls.push([
        Buffer.from(a.buffer, a.byteOffset, a.byteLength),
        Buffer.from(b.buffer, b.byteOffset, b.byteLength),
      ]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const CURRENT = 'the-current-key-tag-secret-0123456789abcdef';
const PREVIOUS = 'the-previous-key-tag-secret-0123456789abcdef';
const RETIRED = 'a-key-tag-secret-two-rotations-ago-0123456789';
const BODY = `cxm_abcdefghijkl_${'Q'.repeat(40)}`;

/** The tag with its character at `index` replaced by another base62 character. */
const changedAt = (tag: string, index: number) =>
  `${tag.slice(0, index)}${tag[index] === 'A' ? 'B' : 'A'}${tag.slice(index + 1)}`;

describe('the tag', () => {
  it('is 8 base62 characters: the first 8 bytes of HMAC-SHA256(secret, rest of the key), modulo 62^8', () => {
    const tag = keyTag(CURRENT, BODY);
    expect(KEY_TAG_LENGTH).toBe(8);
    expect(tag).toMatch(/^[A-Za-z0-9]{8}$/);
    const mac = createHmac('sha256', CURRENT).update(BODY).digest();
    expect(tag).toBe(base62Digits(mac.readBigUInt64BE(0), 8));
  });

  it('depends on the secret and on every character of the rest of the key', () => {
    const tag = keyTag(CURRENT, BODY);
    expect(keyTag(CURRENT, BODY)).toBe(tag);
    expect(keyTag(PREVIOUS, BODY)).not.toBe(tag);
    expect(keyTag(CURRENT, `${BODY.slice(0, -1)}R`)).not.toBe(tag);
    expect(keyTag(CURRENT, BODY.replace('abcdefghijkl', 'abcdefghijkm'))).not.toBe(tag);
  });

  it('spreads over the whole alphabet in every position', () => {
    const tags = Array.from({ length: 2000 }, (_, i) => keyTag(CURRENT, `${BODY}${i}`));
    for (let position = 0; position < KEY_TAG_LENGTH; position++)
      expect(new Set(tags.map((tag) => tag[position])).size, `position ${position}`).toBe(62);
  });

  it('base62Digits writes a fixed number of digits, most significant first, wrapping past them', () => {
    expect(base62Digits(0n, 3)).toBe('AAA');
    expect(base62Digits(61n, 2)).toBe('A9');
    expect(base62Digits(62n, 2)).toBe('BA');
    expect(base62Digits(62n ** 2n, 2)).toBe('AA');
  });
});

describe('verification', () => {
  it('accepts a key tagged under the current secret, and one tagged under the previous one', () => {
    expect(verifyKeyTag([CURRENT, PREVIOUS], BODY, keyTag(CURRENT, BODY))).toBe(true);
    expect(verifyKeyTag([CURRENT, PREVIOUS], BODY, keyTag(PREVIOUS, BODY))).toBe(true);
  });

  it('takes the secrets as KeyObjects as well, with the same verdicts', () => {
    const tagged = parseKey(generateKey(PREVIOUS).key)!;
    const keys = [hmacKey(CURRENT), hmacKey(PREVIOUS)];
    expect(keyTag(keys[1]!, tagged.body)).toBe(keyTag(PREVIOUS, tagged.body));
    expect(verifyKeyTag(keys, tagged.body, tagged.tag!)).toBe(true);
    expect(verifyKeyTag([hmacKey(CURRENT)], tagged.body, tagged.tag!)).toBe(false);
  });

  it('refuses a key tagged under a secret no longer accepted (a second rotation drops the first)', () => {
    expect(verifyKeyTag([CURRENT, PREVIOUS], BODY, keyTag(RETIRED, BODY))).toBe(false);
    expect(verifyKeyTag([CURRENT], BODY, keyTag(PREVIOUS, BODY))).toBe(false);
    expect(verifyKeyTag([], BODY, keyTag(CURRENT, BODY))).toBe(false);
  });

  it('refuses a tag wrong in any one character, or of another length, or moved to another key', () => {
    const tag = keyTag(CURRENT, BODY);
    for (let index = 0; index < KEY_TAG_LENGTH; index++)
      expect(verifyKeyTag([CURRENT, PREVIOUS], BODY, changedAt(tag, index)), `character ${index}`).toBe(false);
    expect(verifyKeyTag([CURRENT], BODY, tag.slice(1))).toBe(false);
    expect(verifyKeyTag([CURRENT], BODY, `${tag}A`)).toBe(false);
    expect(verifyKeyTag([CURRENT], BODY.replace('QQQ', 'QQR'), tag)).toBe(false);
  });

  it('compares in constant time: timingSafeEqual over the whole tag, for every accepted secret, wherever a wrong tag differs', () => {
    const tag = keyTag(CURRENT, BODY);
    for (const given of [tag, changedAt(tag, 0), changedAt(tag, KEY_TAG_LENGTH - 1), keyTag(PREVIOUS, BODY)]) {
      timingSafeEqual.calls.length = 0;
      verifyKeyTag([CURRENT, PREVIOUS], BODY, given);
      // Both secrets tried even when the first matched, each over all 8 bytes of the given tag.
      expect(timingSafeEqual.calls.map(([a, b]) => [a.toString(), b.length])).toEqual([
        [given, KEY_TAG_LENGTH],
        [given, KEY_TAG_LENGTH],
      ]);
    }
  });

  it('a generated key verifies under its secret, and a key of another stage does not', () => {
    const { key } = generateKey(CURRENT);
    const parsed = parseKey(key)!;
    expect(verifyKeyTag([CURRENT, PREVIOUS], parsed.body, parsed.tag!)).toBe(true);
    const other = parseKey(generateKey('another-stage-key-tag-secret-0123456789').key)!;
    expect(verifyKeyTag([CURRENT, PREVIOUS], other.body, other.tag!)).toBe(false);
  });
});
