/** HMAC-SHA256 under a KeyObject is the MAC Node computes from the same key given as a string or bytes. */
import { createHmac, createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacKey, hmacSha256 } from '#shared/domain/hmac-sha256';

describe('hmacSha256', () => {
  const message = 'cxm_k1abcdefghij_payload';

  it('is the MAC of a string key (its UTF-8 bytes), of a byte key and of the KeyObject of either', () => {
    const textKey = 'a stage sécret of some length, 32+ characters';
    const byteKey = Buffer.from([1, 2, 3, 200, 255]);
    for (const key of [textKey, byteKey]) {
      const expected = createHmac('sha256', key).update(message).digest('hex');
      expect(hmacSha256(key).update(message).digest('hex')).toBe(expected);
      expect(hmacSha256(hmacKey(key)).update(message).digest('hex')).toBe(expected);
    }
  });

  it('makes a secret KeyObject of the key', () => {
    const key = hmacKey('k');
    expect(key.type).toBe('secret');
    expect(key.equals(createSecretKey(Buffer.from('k')))).toBe(true);
  });
});
