/**
 * Revokes a key: marks it revoked, then on a deployed stage deletes its API Gateway key from the
 * usage plan (D10), so the gateway refuses it even where an authorizer cache still allows it.
 * The counterpart of issueKey, used by `cxm keys revoke` and by `cxm smoke` for its temporary key.
 */
import type { KeysStore, StoredKey } from '#shared/store/keys-store';
import type { UsagePlanKeys } from './usage-plan-keys.ts';

export interface RevokedKey {
  stored: StoredKey;
  /** The id of the API Gateway key deleted with it, when it had one and a plan was given. */
  deletedUsageKey?: string;
}

/** Undefined when no key has that id. */
export async function revokeKey(store: KeysStore, keyId: string, at = new Date(), usagePlan?: UsagePlanKeys): Promise<RevokedKey | undefined> {
  const stored = await store.revoke(keyId, at);
  if (!stored) return undefined;
  if (!usagePlan || !stored.usageKey) return { stored };
  await usagePlan.remove(stored.usageKey.id);
  return { stored, deletedUsageKey: stored.usageKey.id };
}
