/**
 * Issues a key: generates it, stores only its hash, and returns it once for the operator. On a
 * deployed stage each of its tenants first gets its usage-plan key if it has none yet (issue 14:
 * one API Gateway key per tenant, shared by all of the tenant's keys), so the key is throttled
 * from its first request. A tenant key that cannot be stored leaves at most those tenant usage
 * keys behind, which `cxm keys sync` deletes when no active key holds the tenant.
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
  /** The API Gateway key of each tenant on a deployed stage, in the key's tenant order. */
  usageKeys: { tenantId: string; id: string }[];
}

export async function issueKey(
  store: KeysStore,
  request: KeyRequest,
  now = new Date(),
  usagePlan?: UsagePlanKeys,
): Promise<IssuedKey> {
  const { keyId, key, keyHash } = generateKey();
  const tenants = [...new Set(request.tenants)];
  const usageKeys: IssuedKey['usageKeys'] = [];
  // One at a time: a plan that refuses a key stops here, before the tenant key exists.
  for (const tenantId of usagePlan ? tenants : []) usageKeys.push({ tenantId, id: (await usagePlan!.ensureTenant(tenantId)).id });
  const stored: StoredKey = {
    keyId,
    keyHash,
    tenants,
    scopes: [...new Set(request.scopes)],
    name: request.name,
    createdAt: now.toISOString(),
    expiresAt: request.expiresAt,
  };
  await store.create(stored);
  return { key, stored, usageKeys };
}
