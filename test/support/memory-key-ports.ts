/**
 * The keys store and a stage's usage plan in memory, for the rules of issue-key, revoke-key and
 * sync-usage-plan that depend only on what the ports answer (the ordering of two operators' runs,
 * which the CLI tests against DynamoDB Local and the fake API Gateway cannot interleave on demand).
 * Each port takes hooks that run just before an operation, where a test puts the other operator.
 */
import { tenantUsageKeyName, tenantUsageKeyValue } from '#shared/auth/usage-identity';
import type { StageUsageKey, UsagePlanKeys } from '#shared/auth/usage-plan-keys';
import type { KeysStore, StoredKey } from '#shared/store/keys-store';

export const MEMORY_STAGE = 'prod';

let keyCount = 0;
/** A stored key of these tenants, with a fresh id and hash. */
export function storedKey(tenants: string[], lifecycle: Pick<StoredKey, 'expiresAt' | 'revokedAt'> = {}): StoredKey {
  keyCount++;
  return { keyId: `k${String(keyCount).padStart(11, '0')}`, keyHash: `h${keyCount}`, tenants, scopes: ['cxm:*'], name: 'test', createdAt: '2027-01-01T00:00:00Z', ...lifecycle };
}

export function memoryStore(keys: StoredKey[], hooks: { beforeCreate?: () => Promise<void> } = {}): KeysStore {
  return {
    findByHash: async (hash) => keys.find((key) => key.keyHash === hash),
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

/** The stage's API Gateway keys by id (id -> name), and what was done to them, in order. */
export function memoryPlan(initial: Record<string, string> = {}, hooks: { beforeRemoveTenant?: () => Promise<void>; ensureTenant?: (tenantId: string) => void } = {}) {
  const keys = new Map(Object.entries(initial));
  const log: string[] = [];
  let next = 0;
  const idOf = (name: string) => [...keys].find(([, existing]) => existing === name)?.[0];
  const plan: UsagePlanKeys = {
    async ensureTenant(tenantId) {
      log.push(`ensure ${tenantId}`);
      hooks.ensureTenant?.(tenantId);
      const name = tenantUsageKeyName(MEMORY_STAGE, tenantId);
      let id = idOf(name);
      if (!id) keys.set((id = `new${next++}`), name);
      return { id, value: tenantUsageKeyValue(MEMORY_STAGE, tenantId) };
    },
    async removeTenant(tenantId) {
      await hooks.beforeRemoveTenant?.();
      log.push(`removeTenant ${tenantId}`);
      const id = idOf(tenantUsageKeyName(MEMORY_STAGE, tenantId));
      return id && keys.delete(id) ? [id] : [];
    },
    async remove(id) {
      log.push(`remove ${id}`);
      return keys.delete(id);
    },
    list: async (): Promise<StageUsageKey[]> => [...keys].map(([id, name]) => ({ id, name })),
  };
  /** Whether the tenant has its usage key now. */
  const hasTenantKey = (tenantId: string) => idOf(tenantUsageKeyName(MEMORY_STAGE, tenantId)) !== undefined;
  return { plan, keys, log, hasTenantKey };
}
