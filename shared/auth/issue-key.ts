/**
 * Issues a key: generates it, stores only its hash, and returns it once for the operator. On a
 * deployed stage each of its tenants first gets its usage-plan key if it has none yet (issue 14:
 * one API Gateway key per tenant, shared by all of the tenant's keys), so the key is throttled
 * from its first request. A tenant key that cannot be stored leaves at most those tenant usage
 * keys behind, which `cxm keys sync` deletes when no active key holds the tenant.
 * Once stored, each tenant's usage key is ensured again: a revoke of the tenant's last other key
 * running at the same moment may have deleted it between the first ensure and the store (it
 * checked for other keys before this one existed); after the store, either that revoke sees this
 * key and keeps the usage key, or its delete came first and the second ensure puts it back.
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
  /**
   * Tenants whose usage key could not be ensured again once the key was stored (the key is
   * stored and returned all the same: it was ensured before); `cxm keys sync` repairs them.
   */
  unconfirmed: { tenantId: string; reason: string }[];
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
  const unconfirmed: IssuedKey['unconfirmed'] = [];
  for (const usage of usageKeys) {
    try {
      // Usually two reads that change nothing; the id differs only if it was deleted meanwhile.
      usage.id = (await usagePlan!.ensureTenant(usage.tenantId)).id;
    } catch (error) {
      // The key is stored: losing it now (never shown to the operator) would be worse.
      unconfirmed.push({ tenantId: usage.tenantId, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { key, stored, usageKeys, unconfirmed };
}
