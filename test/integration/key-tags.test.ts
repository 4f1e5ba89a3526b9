/**
 * Keys carry a tag only this stage can compute (shared/auth/key-tag.ts), and the authorizer checks
 * it before any read: a made-up key of the right shape is 401, the usual body, without touching
 * DynamoDB. Over real HTTP through the local gateway, in both runtimes (bundle mode's authorizer
 * reads the key-tag secret through the Secrets Manager stand-in, as deployed), with every read of
 * the keys table counted below the SDK. The stage here accepts keys issued before tags (the
 * default, `edge.acceptUntaggedKeys`), at the cost of their read; untagged-keys-refused.test.ts
 * turns that off. The test secrets are as after one rotation: a key tagged under the previous
 * secret still works.
 *
 * @group sources bundles
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNAUTHENTICATED_MESSAGE } from '#shared/api/api-error';
import { BASE62_ALPHABET } from '#shared/auth/base62';
import { keyTag } from '#shared/auth/key-tag';
import { type KeyReadCounting, startKeyReadCounting } from '#test/support/count-key-reads';
import { uniqueTenant } from '#test/support/test-api';
import { TEST_KEY_TAG_SECRET_PREVIOUS } from '#test/support/test-env';

const tenant = uniqueTenant('keytag');
const SCOPES = ['provisioning:*'];
/** A secret of two rotations ago, or of another stage: no longer accepted. */
const RETIRED_SECRET = 'a-key-tag-secret-two-rotations-ago-0123456789';
const UNAUTHENTICATED = { code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE };

let counting: KeyReadCounting;
let key: string;

const random = (alphabet: string, length: number) =>
  Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
/** A token a forger can make: the right shape, a random key id and secret, and a tag. */
const madeUp = (tag = random(BASE62_ALPHABET, 8)) =>
  `cxm_${random('abcdefghijklmnopqrstuvwxyz0123456789', 12)}_${random(BASE62_ALPHABET, 40)}_${tag}`;
/** The tag with its last character replaced. */
const wrongLast = (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;

beforeAll(async () => {
  counting = await startKeyReadCounting();
  ({ key } = await counting.direct.createKey([tenant], SCOPES));
  // Warm: in bundle mode the authorizer's first request starts its environment and reads the secret.
  expect((await counting.getWith(tenant, key)).answer.status).toBe(404);
});
afterAll(() => counting?.close());

describe('a key with a wrong tag costs no read', () => {
  it.each<[string, () => string]>([
    ['a made-up key of the right shape', () => madeUp()],
    [
      'a made-up key tagged under a secret the stage does not hold',
      () => {
        const forged = madeUp('AAAAAAAA');
        return `${forged.slice(0, 57)}_${keyTag(RETIRED_SECRET, forged.slice(0, 57))}`;
      },
    ],
    ['a real key with one character of its tag changed', () => wrongLast(key)],
    ['a real key id and secret with a made-up tag', () => `${key.slice(0, 57)}_${random(BASE62_ALPHABET, 8)}`],
  ])('%s: 401 with the usual body, and no read of the keys table', async (_name, token) => {
    const { answer, keyReads } = await counting.getWith(tenant, token());
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual(UNAUTHENTICATED);
    expect(keyReads).toBe(0);
  });

  it('a flood of made-up keys: every one refused, not one read', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => counting.getWith(tenant, madeUp())));
    expect(answers.map(({ answer }) => answer.status)).toEqual(answers.map(() => 401));
    expect(answers.reduce((total, { keyReads }) => total + keyReads, 0)).toBe(0);
  });
});

describe('keys that work', () => {
  it('a key tagged under the current secret: accepted, with its one read', async () => {
    const { answer, keyReads } = await counting.getWith(tenant, key);
    expect(answer.status).toBe(404);
    expect(keyReads).toBe(1);
  });

  it('after one rotation, a key tagged under the previous secret still works; one of a secret two rotations old is refused without a read', async () => {
    const previous = await counting.direct.createKey([tenant], SCOPES, TEST_KEY_TAG_SECRET_PREVIOUS);
    expect(await counting.getWith(tenant, previous.key)).toMatchObject({ answer: { status: 404 }, keyReads: 1 });
    const retired = await counting.direct.createKey([tenant], SCOPES, RETIRED_SECRET);
    expect(await counting.getWith(tenant, retired.key)).toMatchObject({
      answer: { status: 401, json: UNAUTHENTICATED },
      keyReads: 0,
    });
  });

  it('a key issued before tags works while the stage accepts untagged keys, at the cost of its read; a made-up untagged one costs the same read', async () => {
    const old = await counting.direct.createUntaggedKey([tenant], SCOPES);
    expect(old.key).toMatch(/^cxm_[a-z0-9]{12}_[A-Za-z0-9]{40}$/);
    expect(await counting.getWith(tenant, old.key)).toMatchObject({ answer: { status: 404 }, keyReads: 1 });
    expect(await counting.getWith(tenant, madeUp().slice(0, 57))).toMatchObject({
      answer: { status: 401, json: UNAUTHENTICATED },
      keyReads: 1,
    });
  });

  it('a tagged key that is revoked is refused after its read, as before tags', async () => {
    const revoked = await counting.direct.createKey([tenant], SCOPES);
    await counting.direct.keys.revoke(revoked.keyId, new Date());
    expect(await counting.getWith(tenant, revoked.key)).toMatchObject({
      answer: { status: 401, json: UNAUTHENTICATED },
      keyReads: 1,
    });
  });
});
