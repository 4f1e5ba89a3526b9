/**
 * Issues a key: generates it, stores only its hash, and returns it once for the operator. On a
 * deployed stage the key first gets its own API Gateway key in the usage plan (D10), which is
 * deleted again if the key cannot be stored, so no orphan keeps a plan slot.
 */
import type { KeysStore, StoredKey } from '#shared/store/keys-store';
import { generateKey } from './key-format.ts';
import type { UsagePlanKeys } from './usage-plan-keys.ts';

export interface KeyRequest {
  tenants: string[];
  scopes: string[];
  name: string;
  expiresAt?: string | undefined;
}

export interface IssuedKey {
  key: string;
  stored: StoredKey;
}

export async function issueKey(
  store: KeysStore,
  request: KeyRequest,
  now = new Date(),
  usagePlan?: UsagePlanKeys,
): Promise<IssuedKey> {
  const { keyId, key, keyHash } = generateKey();
  const usageKey = await usagePlan?.add(keyId);
  const stored: StoredKey = {
    keyId,
    keyHash,
    tenants: [...new Set(request.tenants)],
    scopes: [...new Set(request.scopes)],
    name: request.name,
    createdAt: now.toISOString(),
    expiresAt: request.expiresAt,
    usageKey,
  };
  try {
    await store.create(stored);
  } catch (error) {
    if (usagePlan && usageKey) {
      await usagePlan.remove(usageKey.id).catch((cleanup: unknown) => {
        throw new AggregateError([error, cleanup], `the key could not be stored, and its API Gateway key ${usageKey.id} could not be deleted; delete it by hand`);
      });
    }
    throw error;
  }
  return { key, stored };
}
