/**
 * Brings a stage's usage plan in line with its keys table (issue 14): every tenant held by an
 * active key has its API Gateway key in the plan, and no tenant without one keeps a key (a slot of
 * the region's 10 000). `cxm keys create` and `revoke` keep this true one key at a time; this
 * repairs what they cannot see: keys issued before issue 14, a create and a revoke that crossed, a
 * key deleted by hand, keys that expired. With `pruneLegacy` it also deletes the per-key API
 * Gateway keys D10 made, once the authorizer that names tenant keys is deployed.
 */
import type { KeysStore } from '#shared/store/keys-store';
import { keyStatus } from './key-status.ts';
import { tenantUsageKeyPrefix } from './usage-identity.ts';
import type { UsagePlanKeys } from './usage-plan-keys.ts';

export interface UsagePlanSync {
  /** Tenants whose key was checked (and created or repaired where needed), sorted. */
  tenants: string[];
  /** API Gateway keys deleted: tenants without an active key, and D10 keys when pruned. */
  deleted: { id: string; name: string }[];
  /** D10 per-key keys left in place (without `pruneLegacy`). */
  legacy: number;
}

/** A D10 key is named `cxm-<stage>-<keyId>`, keyId being 12 of [a-z0-9] (key-format.ts). */
const LEGACY_KEY_ID = /^[a-z0-9]{12}$/;

export async function syncUsagePlan(
  store: KeysStore,
  usagePlan: UsagePlanKeys,
  stage: string,
  options: { pruneLegacy?: boolean; now?: Date; onTenant?: (done: number, total: number) => void } = {},
): Promise<UsagePlanSync> {
  const nowMs = (options.now ?? new Date()).getTime();
  const active = new Set<string>();
  for (const key of await store.list()) if (keyStatus(key, nowMs) === 'active') for (const tenant of key.tenants) active.add(tenant);
  const tenants = [...active].sort();
  for (const [index, tenantId] of tenants.entries()) {
    await usagePlan.ensureTenant(tenantId);
    options.onTenant?.(index + 1, tenants.length);
  }

  const result: UsagePlanSync = { tenants, deleted: [], legacy: 0 };
  const tenantPrefix = tenantUsageKeyPrefix(stage);
  const stagePrefix = `cxm-${stage}-`;
  for (const key of await usagePlan.list()) {
    if (key.name.startsWith(tenantPrefix)) {
      if (active.has(key.name.slice(tenantPrefix.length))) continue;
    } else if (LEGACY_KEY_ID.test(key.name.slice(stagePrefix.length))) {
      if (!options.pruneLegacy) {
        result.legacy++;
        continue;
      }
    } else {
      continue; // not one of ours
    }
    if (await usagePlan.remove(key.id)) result.deleted.push(key);
  }
  return result;
}
