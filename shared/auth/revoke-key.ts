/**
 * Revokes a key: marks it revoked, then on a deployed stage deletes the usage-plan key of each of
 * its tenants that no other active key holds (issue 14), so the gateway refuses the tenant's last
 * key at once even where an authorizer cache still allows it; a tenant with other keys keeps its
 * key and its rate, and the revoked key stops within the authorizer cache TTL. A key made before
 * issue 14 also loses the API Gateway key of its own that it had then (D10). Safe to run again.
 * The counterpart of issueKey, used by `cxm keys revoke` and by `cxm smoke` for its temporary key.
 */
import type { KeysStore, StoredKey } from '#shared/store/keys-store';
import { keyStatus } from './key-status.ts';
import type { UsagePlanKeys } from './usage-plan-keys.ts';

export interface RevokedKey {
  stored: StoredKey;
  /** API Gateway keys deleted with it: its tenants' that no other active key holds, and its D10 one. */
  deletedUsageKeys: string[];
  /** Tenants whose usage-plan key stays, because another active key holds them. */
  sharedTenants: string[];
}

/** Undefined when no key has that id. */
export async function revokeKey(store: KeysStore, keyId: string, at = new Date(), usagePlan?: UsagePlanKeys): Promise<RevokedKey | undefined> {
  const stored = await store.revoke(keyId, at);
  if (!stored) return undefined;
  const revoked: RevokedKey = { stored, deletedUsageKeys: [], sharedTenants: [] };
  if (!usagePlan) return revoked;
  // Reported only when this run deleted it: revoking again does not claim it a second time.
  if (stored.usageKey && (await usagePlan.remove(stored.usageKey.id))) revoked.deletedUsageKeys.push(stored.usageKey.id);
  // A filtered Scan reads the whole table anyway: one listing answers for every tenant of the key.
  const heldByOthers = async () =>
    new Set((await store.list()).filter((key) => key.keyId !== keyId && keyStatus(key, at.getTime()) === 'active').flatMap((key) => key.tenants));
  const held = await heldByOthers();
  const removed = new Map<string, string[]>();
  for (const tenantId of stored.tenants) {
    if (held.has(tenantId)) revoked.sharedTenants.push(tenantId);
    else removed.set(tenantId, await usagePlan.removeTenant(tenantId));
  }
  // A key of a tenant created meanwhile ensured the usage key before these deletes: look again
  // (its create ensures it once more after storing, so one of the two always puts it back).
  const heldNow = [...removed.values()].some((ids) => ids.length > 0) ? await heldByOthers() : new Set<string>();
  for (const [tenantId, deleted] of removed) {
    if (deleted.length > 0 && heldNow.has(tenantId)) {
      await usagePlan.ensureTenant(tenantId);
      revoked.sharedTenants.push(tenantId);
    } else {
      revoked.deletedUsageKeys.push(...deleted);
    }
  }
  return revoked;
}
