/**
 * Revokes a key: marks it revoked, then on a deployed stage deletes its usage-plan key where no
 * other active key needs it: a key of several tenants takes its own with it; a key of one tenant
 * takes its tenant's when no other active key of that tenant alone remains, so the gateway refuses
 * the tenant's last key at once even where an authorizer cache still allows it. A tenant with other
 * keys keeps its key and its rate, and the revoked key stops within the authorizer cache TTL. Safe
 * to run again. The counterpart of issueKey, used by `cxm keys revoke` and by `cxm smoke` for its
 * temporary key.
 */
import type { KeysStore, StoredKey } from './key-records.ts';
import { keyStatus } from './key-status.ts';
import { usageOwner } from './usage-identity.ts';
import type { UsagePlanKeys } from './usage-plan-keys.ts';

export interface RevokedKey {
  stored: StoredKey;
  /** API Gateway keys deleted with it: its usage key, when no other active key needs it. */
  deletedUsageKeys: string[];
  /** The tenant whose usage key stays because another active key of that tenant alone needs it. */
  sharedTenant: string | undefined;
}

/** Undefined when no key has that id. */
export async function revokeKey(
  store: KeysStore,
  keyId: string,
  at = new Date(),
  usagePlan?: UsagePlanKeys,
): Promise<RevokedKey | undefined> {
  const stored = await store.revoke(keyId, at);
  if (!stored) return undefined;
  const revoked: RevokedKey = { stored, deletedUsageKeys: [], sharedTenant: undefined };
  if (!usagePlan) return revoked;
  const owner = usageOwner(stored);
  if (!owner) return revoked;
  if (owner.kind === 'key') {
    // Its own: no other key is throttled through it.
    revoked.deletedUsageKeys.push(...(await usagePlan.removeOwner(owner)));
    return revoked;
  }
  // Other active keys throttled through the same tenant key: keys of that tenant alone. (A
  // filtered Scan reads the whole table anyway: one listing answers.)
  const heldByOthers = async () =>
    (await store.list()).some(
      (key) =>
        key.keyId !== keyId &&
        keyStatus(key, at.getTime()) === 'active' &&
        key.tenants.length === 1 &&
        key.tenants[0] === owner.tenantId,
    );
  if (await heldByOthers()) {
    revoked.sharedTenant = owner.tenantId;
    return revoked;
  }
  const deleted = await usagePlan.removeOwner(owner);
  // A key of the tenant created meanwhile ensured the usage key before this delete: look again
  // (its create ensures it once more after storing, so one of the two always puts it back).
  if (deleted.length > 0 && (await heldByOthers())) {
    await usagePlan.ensure(owner);
    revoked.sharedTenant = owner.tenantId;
  } else {
    revoked.deletedUsageKeys.push(...deleted);
  }
  return revoked;
}
