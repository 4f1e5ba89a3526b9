import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, parseKey } from '#shared/auth/key-format';
import { keyStatus } from '#shared/auth/key-status';
import { keyTag } from '#shared/auth/key-tag';
import { parseBearerToken } from '#shared/auth/parse-bearer-token';
import { findHeader } from '#shared/http/find-header';

const TAG_SECRET = 'a-key-tag-secret-of-this-stage-0123456789';

describe('key format', () => {
  it('is cxm_<12 [a-z0-9]>_<40 base62>_<8 base62 tag>, one URL-safe word that carries its id', () => {
    const { key, keyId, keyHash } = generateKey(TAG_SECRET);
    expect(key).toMatch(/^cxm_[a-z0-9]{12}_[A-Za-z0-9]{40}_[A-Za-z0-9]{8}$/);
    expect(encodeURIComponent(key)).toBe(key);
    expect(key.slice(4, 16)).toBe(keyId);
    expect(parseKey(key)).toEqual({ keyId, body: key.slice(0, 57), tag: key.slice(58) });
    expect(keyHash).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('its tag is the HMAC of the rest under the secret it was generated with', () => {
    const { key } = generateKey(TAG_SECRET);
    expect(key.slice(58)).toBe(keyTag(TAG_SECRET, key.slice(0, 57)));
    expect(key.slice(58)).not.toBe(keyTag(`${TAG_SECRET}-other`, key.slice(0, 57)));
  });

  it('reads a key issued before tags, without its tag', () => {
    const old = `cxm_abcdefghijkl_${'a'.repeat(40)}`;
    expect(parseKey(old)).toEqual({ keyId: 'abcdefghijkl', body: old, tag: undefined });
  });

  it('never repeats and uses the whole alphabet', () => {
    const keys = Array.from({ length: 500 }, () => generateKey(TAG_SECRET).key);
    expect(new Set(keys).size).toBe(500);
    const secretChars = new Set(keys.flatMap((k) => [...k.slice(17, 57)]));
    expect(secretChars.size).toBe(62);
  });

  it('hashes with SHA-256 of the whole key, hex encoded', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it.each([
    '',
    'cxm_',
    'cxm_abcdefghijkl_short',
    `cxm_ABCDEFGHIJKL_${'a'.repeat(40)}`,
    `cxm_abcdefghijk_${'a'.repeat(41)}`,
    `xyz_abcdefghijkl_${'a'.repeat(40)}`,
    `cxm_abcdefghijkl_${'a'.repeat(39)}!`,
    ` cxm_abcdefghijkl_${'a'.repeat(40)}`,
    `cxm_abcdefghijkl_${'a'.repeat(40)}_`,
    `cxm_abcdefghijkl_${'a'.repeat(40)}_abcdefg`,
    `cxm_abcdefghijkl_${'a'.repeat(40)}_abcdefghi`,
    `cxm_abcdefghijkl_${'a'.repeat(40)}_abcdefg-`,
    `cxm_abcdefghijkl_${'a'.repeat(40)}abcdefgh`,
  ])('refuses the malformed key %j', (key) => {
    expect(parseKey(key)).toBeUndefined();
  });

  it('is active until revoked or expired', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    expect(keyStatus({}, now)).toBe('active');
    expect(keyStatus({ expiresAt: '2026-06-01T00:00:01Z' }, now)).toBe('active');
    expect(keyStatus({ expiresAt: '2026-06-01T00:00:00Z' }, now)).toBe('expired');
    expect(keyStatus({ revokedAt: '2026-05-01T00:00:00Z', expiresAt: '2027-01-01T00:00:00Z' }, now)).toBe('revoked');
  });
});

describe('Authorization header', () => {
  it('takes the token of a Bearer header, the scheme in any case', () => {
    expect(parseBearerToken('Bearer abc')).toBe('abc');
    expect(parseBearerToken('bearer abc')).toBe('abc');
    expect(parseBearerToken('BEARER  abc ')).toBe('abc');
  });

  it.each([undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Token abc', 'abc', 'Bearer a b', 'Bearerabc'])(
    'refuses %j',
    (header) => {
      expect(parseBearerToken(header)).toBeUndefined();
    },
  );

  it('finds headers case-insensitively', () => {
    expect(findHeader({ AUTHORIZATION: 'x' }, 'authorization')).toBe('x');
    expect(findHeader(null, 'authorization')).toBeUndefined();
  });
});

describe('the authorizer policy', () => {
  it('allows every method and path of the request stage, nothing beyond it', async () => {
    const { allowWholeStage } = await import('#shared/auth/allow-whole-stage');
    const policy = allowWholeStage(
      'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/POST/api/v1/cxm/tenants/t/conversations/c/internal-notes',
    );
    expect(policy.Statement).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Allow',
        Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*/*',
      },
    ]);
  });
});
