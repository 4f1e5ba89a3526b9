/**
 * Brings a stage's usage plan in line with its keys table (rate limits per tenant): every usage
 * owner of an active key (its tenant, or the key itself when it holds several) has its API Gateway
 * key in the plan, and no owner without one keeps a key (a slot of the region's 10 000). `cxm keys
 * create` and `revoke` keep this true one key at a time; this repairs what they cannot see: keys
 * issued before, a create and a revoke that crossed, a key deleted by hand, keys that expired.
 * Only usage keys this stage names are touched; any other key in the plan is left alone.
 */
import type { KeysStore } from './key-records.ts';
import { keyStatus } from './key-status.ts';
import {
  keyUsageKeyPrefix,
  tenantUsageKeyPrefix,
  type UsageOwner,
  usageKeyName,
  usageOwner,
} from './usage-identity.ts';
import type { UsagePlanKeys } from './usage-plan-keys.ts';

export interface UsagePlanSync {
  /** The API Gateway key names checked (and created or repaired where needed), sorted. */
  owners: string[];
  /** API Gateway keys deleted: those of owners without an active key. */
  deleted: { id: string; name: string }[];
}

export async function syncUsagePlan(
  store: KeysStore,
  usagePlan: UsagePlanKeys,
  stage: string,
  options: { now?: Date; onOwner?: (done: number, total: number) => void } = {},
): Promise<UsagePlanSync> {
  const nowMs = (options.now ?? new Date()).getTime();
  /** Usage keys the active keys need, by name. */
  const needed = async () => {
    const wanted = new Map<string, UsageOwner>();
    for (const key of await store.list()) {
      if (keyStatus(key, nowMs) !== 'active') continue;
      const owner = usageOwner(key);
      if (owner) wanted.set(usageKeyName(stage, owner), owner);
    }
    return wanted;
  };
  const wanted = await needed();
  const owners = [...wanted.keys()].sort();
  for (const [index, name] of owners.entries()) {
    await usagePlan.ensure(wanted.get(name)!);
    options.onOwner?.(index + 1, owners.length);
  }

  const result: UsagePlanSync = { owners, deleted: [] };
  const ours = [tenantUsageKeyPrefix(stage), keyUsageKeyPrefix(stage)];
  for (const key of await usagePlan.list()) {
    if (wanted.has(key.name) || !ours.some((prefix) => key.name.startsWith(prefix))) continue;
    if (await usagePlan.remove(key.id)) result.deleted.push(key);
  }
  // A key created since the listing above may have ensured one of these just before its delete:
  // look again, as revoke does, and put back what an active key now needs (its create also ensures
  // it once more after storing, so one of the two always does).
  if (result.deleted.length > 0) {
    const now = await needed();
    const restored = result.deleted.filter((key) => now.has(key.name));
    for (const key of restored) await usagePlan.ensure(now.get(key.name)!);
    result.deleted = result.deleted.filter((key) => !restored.includes(key));
  }
  return result;
}
