/**
 * A key as stages issued it before key tags, `cxm_<keyId>_<secret>` with a record that has no
 * `tagged`: what a deployed stage's old keys look like, for the tests of accepting and refusing
 * them (the code issues tagged keys only).
 */
import { generateKey, hashKey, parseKey } from '#shared/auth/key-format';
import type { KeysStore } from '#shared/auth/key-records';

/**
 * Stores an untagged key holding `tenants` and `scopes`, and returns it.
 *
 * @example
 * const { key } = await storeUntaggedKey(keys, ['acme'], ['cxm:*']); // 'cxm_<12>_<40>'
 */
export async function storeUntaggedKey(
  store: KeysStore,
  tenants: string[],
  scopes: string[],
): Promise<{ key: string; keyId: string; keyHash: string }> {
  // A new key without its tag: the tag secret here tags nothing that is kept.
  const { keyId, body: key } = parseKey(generateKey('any secret: the tag is dropped').key)!;
  const keyHash = hashKey(key);
  await store.create({
    keyId,
    keyHash,
    tenants,
    scopes,
    name: 'issued before key tags',
    createdAt: new Date().toISOString(),
  });
  return { key, keyId, keyHash };
}
