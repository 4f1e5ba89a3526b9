/**
 * Brings a stage's usage plan in line with its keys table (rate limits per tenant): every usage
 * owner of an active key (its tenant, or the key itself when it holds several) has its API Gateway
 * key in the plan, and no owner without one keeps a key (a slot of the region's 10 000). `cxm keys
 * create` and `revoke` keep this true one key at a time; this repairs what they cannot see: keys
 * issued before, a create and a revoke that crossed, a key deleted by hand, keys that expired.
 *
 * Legacy keys wait for `pruneLegacy`, which is for after the authorizer that no longer names them
 * is deployed: the per-key keys of stages from before per-tenant limits (`cxm-<stage>-<keyId>`),
 * and the tenant keys that the first per-tenant authorizer gave the tenants of keys of several
 * tenants (now throttled through a key of their own). So an upgrade is: sync (the new keys exist),
 * deploy, sync with pruneLegacy.
 */
import type { KeysStore } from './key-records.ts';
import { keyStatus } from './key-status.ts';
import { keyUsageKeyPrefix, tenantUsageKeyPrefix, type UsageOwner, usageKeyName, usageOwner } from './usage-identity.ts';
import type { UsagePlanKeys } from './usage-plan-keys.ts';

export interface UsagePlanSync {
  /** The API Gateway key names checked (and created or repaired where needed), sorted. */
  owners: string[];
  /** API Gateway keys deleted: owners without an active key, and legacy keys when pruned. */
  deleted: { id: string; name: string }[];
  /** Legacy keys left in place (without `pruneLegacy`). */
  legacy: number;
}

/** A legacy per-key key is named `cxm-<stage>-<keyId>`, keyId being 12 of [a-z0-9] (key-format.ts). */
const LEGACY_KEY_ID = /^[a-z0-9]{12}$/;

export async function syncUsagePlan(
  store: KeysStore,
  usagePlan: UsagePlanKeys,
  stage: string,
  options: { pruneLegacy?: boolean; now?: Date; onOwner?: (done: number, total: number) => void } = {},
): Promise<UsagePlanSync> {
  const nowMs = (options.now ?? new Date()).getTime();
  /** Usage keys the active keys need, by name; and the tenants of active keys of several tenants, whose tenant keys are legacy now (the first per-tenant authorizer named them). */
  const needed = async () => {
    const wanted = new Map<string, UsageOwner>();
    const heldByShared = new Set<string>();
    for (const key of await store.list()) {
      if (keyStatus(key, nowMs) !== 'active') continue;
      const owner = usageOwner(key);
      if (owner) wanted.set(usageKeyName(stage, owner), owner);
      if (owner?.kind === 'key') for (const tenant of key.tenants) heldByShared.add(tenant);
    }
    return { wanted, heldByShared };
  };
  const { wanted, heldByShared } = await needed();
  const owners = [...wanted.keys()].sort();
  for (const [index, name] of owners.entries()) {
    await usagePlan.ensure(wanted.get(name)!);
    options.onOwner?.(index + 1, owners.length);
  }

  const result: UsagePlanSync = { owners, deleted: [], legacy: 0 };
  const tenantPrefix = tenantUsageKeyPrefix(stage);
  const keyPrefix = keyUsageKeyPrefix(stage);
  const stagePrefix = `cxm-${stage}-`;
  for (const key of await usagePlan.list()) {
    let legacy = false;
    if (key.name.startsWith(tenantPrefix)) {
      if (wanted.has(key.name)) continue;
      legacy = heldByShared.has(key.name.slice(tenantPrefix.length));
    } else if (key.name.startsWith(keyPrefix)) {
      if (wanted.has(key.name)) continue;
    } else if (LEGACY_KEY_ID.test(key.name.slice(stagePrefix.length))) {
      legacy = true;
    } else {
      continue; // not one of ours
    }
    if (legacy && !options.pruneLegacy) {
      result.legacy++;
      continue;
    }
    if (await usagePlan.remove(key.id)) result.deleted.push(key);
  }
  // A key created since the listing above may have ensured one of these just before its delete:
  // look again, as revoke does, and put back what an active key now needs (its create also ensures
  // it once more after storing, so one of the two always does).
  if (result.deleted.length > 0) {
    const now = (await needed()).wanted;
    const restored = result.deleted.filter((key) => now.has(key.name));
    for (const key of restored) await usagePlan.ensure(now.get(key.name)!);
    result.deleted = result.deleted.filter((key) => !restored.includes(key));
  }
  return result;
}
