/**
 * The keys store and a stage's usage plan in memory, for the rules of issue-key, revoke-key and
 * sync-usage-plan that depend only on what the ports answer (the ordering of two operators' runs,
 * which the CLI tests against DynamoDB Local and the fake API Gateway cannot interleave on demand).
 * Each port takes hooks that run just before an operation, where a test puts the other operator.
 */

import type { KeysStore, StoredKey } from '#shared/auth/key-records';
import { tenantUsageKeyName, type UsageOwner, usageKeyName, usageKeyValue } from '#shared/auth/usage-identity';
import type { StageUsageKey, UsagePlanKeys } from '#shared/auth/usage-plan-keys';

export const MEMORY_STAGE = 'prod';

let keyCount = 0;
/** A stored key of these tenants, with a fresh id and hash. */
export function storedKey(tenants: string[], lifecycle: Pick<StoredKey, 'expiresAt' | 'revokedAt'> = {}): StoredKey {
  keyCount++;
  return {
    keyId: `k${String(keyCount).padStart(11, '0')}`,
    keyHash: `h${keyCount}`,
    tenants,
    scopes: ['cxm:*'],
    name: 'test',
    createdAt: '2027-01-01T00:00:00Z',
    ...lifecycle,
  };
}

export function memoryStore(keys: StoredKey[], hooks: { beforeCreate?: () => Promise<void> } = {}): KeysStore {
  return {
    findByHash: async (hash) => keys.find((key) => key.keyHash === hash),
    findByKeyId: async (keyId) => keys.find((key) => key.keyId === keyId),
    async create(key) {
      await hooks.beforeCreate?.();
      keys.push(key);
    },
    list: async (tenantId) => keys.filter((key) => tenantId === undefined || key.tenants.includes(tenantId)),
    async revoke(keyId, at) {
      const key = keys.find((candidate) => candidate.keyId === keyId);
      if (key) key.revokedAt ??= at.toISOString();
      return key && { ...key };
    },
  };
}

/** How the log names an owner: a tenant by its id, a key of several tenants as `key:<keyId>`. */
export const ownerLabel = (owner: UsageOwner) => (owner.kind === 'tenant' ? owner.tenantId : `key:${owner.keyId}`);

/** The stage's API Gateway keys by id (id -> name), and what was done to them, in order. */
export function memoryPlan(
  initial: Record<string, string> = {},
  hooks: {
    beforeRemoveOwner?: () => Promise<void>;
    beforeRemove?: () => Promise<void>;
    ensure?: (owner: string) => void;
  } = {},
) {
  const keys = new Map(Object.entries(initial));
  const log: string[] = [];
  let next = 0;
  const idOf = (name: string) => [...keys].find(([, existing]) => existing === name)?.[0];
  const plan: UsagePlanKeys = {
    stage: MEMORY_STAGE,
    async ensure(owner) {
      log.push(`ensure ${ownerLabel(owner)}`);
      hooks.ensure?.(ownerLabel(owner));
      const name = usageKeyName(MEMORY_STAGE, owner);
      let id = idOf(name);
      if (!id) {
        id = `new${next++}`;
        keys.set(id, name);
      }
      return { id, value: usageKeyValue(MEMORY_STAGE, owner) };
    },
    async removeOwner(owner) {
      await hooks.beforeRemoveOwner?.();
      log.push(`removeOwner ${ownerLabel(owner)}`);
      const id = idOf(usageKeyName(MEMORY_STAGE, owner));
      return id && keys.delete(id) ? [id] : [];
    },
    async remove(id) {
      await hooks.beforeRemove?.();
      log.push(`remove ${id}`);
      return keys.delete(id);
    },
    list: async (): Promise<StageUsageKey[]> => [...keys].map(([id, name]) => ({ id, name })),
  };
  /** Whether the tenant has its usage key now. */
  const hasTenantKey = (tenantId: string) => idOf(tenantUsageKeyName(MEMORY_STAGE, tenantId)) !== undefined;
  /** Whether a key of several tenants has its own usage key now. */
  const hasKeyKey = (keyId: string) => idOf(usageKeyName(MEMORY_STAGE, { kind: 'key', keyId })) !== undefined;
  return { plan, keys, log, hasTenantKey, hasKeyKey };
}
