/**
 * Two operators at once on one tenant: a `cxm keys create` and a `cxm keys revoke` of
 * the tenant's last other key, interleaved at the two points where they can cross. Whatever the
 * order, a tenant left with an active key keeps its usage-plan key: without it API Gateway refuses
 * every request of the new key (403) until `cxm keys sync`. The in-memory ports let each test put
 * the other operator's whole run exactly there.
 */
import { describe, expect, it } from 'vitest';
import { issueKey } from '#shared/auth/issue-key';
import { keyStatus } from '#shared/auth/key-status';
import { revokeKey } from '#shared/auth/revoke-key';
import { syncUsagePlan } from '#shared/auth/sync-usage-plan';
import { tenantUsageKeyName } from '#shared/auth/usage-identity';
import { MEMORY_STAGE, memoryPlan, memoryStore, storedKey } from '#test/support/memory-key-ports';
import { TEST_KEY_TAG_SECRET } from '#test/support/test-env';

const request = { tenants: ['acme'], scopes: ['cxm:*'], name: 'rotated' };
const activeKeys = (keys: ReturnType<typeof storedKey>[]) =>
  keys.filter((key) => keyStatus(key, Date.now()) === 'active');

describe('a create and a revoke of one tenant at once', () => {
  it("a revoke that deletes the usage key between the create's first ensure and its store: the create puts it back", async () => {
    const old = storedKey(['acme']);
    const keys = [old];
    const { plan, hasTenantKey, log } = memoryPlan({ u0: tenantUsageKeyName(MEMORY_STAGE, 'acme') });
    let revoked: Awaited<ReturnType<typeof revokeKey>>;
    // The revoke runs whole just before the new key is stored: it sees no other key, and deletes.
    const store = memoryStore(keys, {
      beforeCreate: async () => {
        revoked = await revokeKey(store, old.keyId, new Date(), plan);
      },
    });

    const issued = await issueKey(store, request, { tagSecret: TEST_KEY_TAG_SECRET, usagePlan: plan });
    expect(revoked!.deletedUsageKeys).toEqual(['u0']);
    expect(activeKeys(keys).map((key) => key.keyId)).toEqual([issued.stored.keyId]);
    expect(hasTenantKey('acme')).toBe(true);
    // The id the operator is shown is the key now in the plan, not the one deleted.
    expect(issued.usageKey).toEqual({
      owner: { kind: 'tenant', tenantId: 'acme' },
      name: tenantUsageKeyName(MEMORY_STAGE, 'acme'),
      id: 'new0',
    });
    expect(issued.unconfirmed).toBeUndefined();
    expect(log).toEqual(['ensure acme', 'removeOwner acme', 'ensure acme']);
  });

  it("a create that lands between the revoke's check and its delete: the revoke looks again and puts it back", async () => {
    const old = storedKey(['acme']);
    const keys = [old];
    let issued: Awaited<ReturnType<typeof issueKey>>;
    const ports = memoryPlan(
      { u0: tenantUsageKeyName(MEMORY_STAGE, 'acme') },
      {
        beforeRemoveOwner: async () => {
          issued = await issueKey(store, request, { tagSecret: TEST_KEY_TAG_SECRET, usagePlan: ports.plan });
        },
      },
    );
    const store = memoryStore(keys);

    const revoked = await revokeKey(store, old.keyId, new Date(), ports.plan);
    expect(activeKeys(keys).map((key) => key.keyId)).toEqual([issued!.stored.keyId]);
    expect(ports.hasTenantKey('acme')).toBe(true);
    expect(revoked).toMatchObject({ deletedUsageKeys: [], sharedTenant: 'acme' });
    expect(ports.log).toEqual(['ensure acme', 'ensure acme', 'removeOwner acme', 'ensure acme']);
  });

  it('without a create the last key still takes its usage key with it (no second look keeps it)', async () => {
    const old = storedKey(['acme']);
    const { plan, hasTenantKey, log } = memoryPlan({ u0: tenantUsageKeyName(MEMORY_STAGE, 'acme') });
    const revoked = await revokeKey(memoryStore([old]), old.keyId, new Date(), plan);
    expect(revoked).toMatchObject({ deletedUsageKeys: ['u0'], sharedTenant: undefined });
    expect(hasTenantKey('acme')).toBe(false);
    expect(log).toEqual(['removeOwner acme']);
  });

  it('a second ensure that fails once the key is stored: the key is returned all the same, the tenant named as unconfirmed', async () => {
    let ensures = 0;
    const { plan } = memoryPlan(
      {},
      {
        ensure: () => {
          if (++ensures === 2) throw new Error('Rate exceeded');
        },
      },
    );
    const keys: ReturnType<typeof storedKey>[] = [];
    const issued = await issueKey(memoryStore(keys), request, { tagSecret: TEST_KEY_TAG_SECRET, usagePlan: plan });
    expect(keys.map((key) => key.keyId)).toEqual([issued.stored.keyId]);
    expect(issued.key).toMatch(/\S{20,}/);
    expect(issued.usageKey).toMatchObject({ owner: { kind: 'tenant', tenantId: 'acme' }, id: 'new0' });
    expect(issued.unconfirmed).toBe('Rate exceeded');
  });

  it('a first ensure that fails stores nothing', async () => {
    const { plan } = memoryPlan(
      {},
      {
        ensure: () => {
          throw new Error('the plan cannot take this key');
        },
      },
    );
    const keys: ReturnType<typeof storedKey>[] = [];
    await expect(
      issueKey(memoryStore(keys), request, { tagSecret: TEST_KEY_TAG_SECRET, usagePlan: plan }),
    ).rejects.toThrow('the plan cannot take this key');
    expect(keys).toEqual([]);
  });
});

describe('a key of several tenants', () => {
  it("is throttled through a usage key of its own, made before it is stored; its revoke takes that key and leaves its tenants' alone", async () => {
    const single = storedKey(['acme']);
    const keys = [single];
    const { plan, log, hasTenantKey, hasKeyKey } = memoryPlan({ u0: tenantUsageKeyName(MEMORY_STAGE, 'acme') });
    const store = memoryStore(keys);
    const issued = await issueKey(
      store,
      { tenants: ['acme', 'globex'], scopes: ['cxm:*'], name: 'partner' },
      { tagSecret: TEST_KEY_TAG_SECRET, usagePlan: plan },
    );
    expect(issued.usageKey).toEqual({
      owner: { kind: 'key', keyId: issued.stored.keyId },
      name: `cxm-${MEMORY_STAGE}-key-${issued.stored.keyId}`,
      id: 'new0',
    });
    expect(log).toEqual([`ensure key:${issued.stored.keyId}`, `ensure key:${issued.stored.keyId}`]);
    // Its tenants get no usage key from it.
    expect(hasTenantKey('globex')).toBe(false);
    const revoked = await revokeKey(store, issued.stored.keyId, new Date(), plan);
    expect(revoked).toMatchObject({ deletedUsageKeys: ['new0'], sharedTenant: undefined });
    expect(hasKeyKey(issued.stored.keyId)).toBe(false);
    expect(hasTenantKey('acme')).toBe(true);
  });

  it("a tenant's usage key goes with its last key of that tenant alone, whatever keys of several tenants still hold the tenant", async () => {
    const single = storedKey(['acme']);
    const partner = storedKey(['acme', 'globex']);
    const { plan, hasTenantKey } = memoryPlan({ u0: tenantUsageKeyName(MEMORY_STAGE, 'acme') });
    const revoked = await revokeKey(memoryStore([single, partner]), single.keyId, new Date(), plan);
    expect(revoked).toMatchObject({ deletedUsageKeys: ['u0'] });
    expect(hasTenantKey('acme')).toBe(false);
  });
});

describe('a sync and a create at once', () => {
  it("a create that stores its key after sync's listing and before sync deletes that usage key: sync looks again and puts it back", async () => {
    const keys: ReturnType<typeof storedKey>[] = [];
    const store = memoryStore(keys);
    let created = false;
    // The tenant's usage key is left over (no active key) when sync lists; the create lands just before the delete.
    const ports = memoryPlan(
      { u0: tenantUsageKeyName(MEMORY_STAGE, 'acme') },
      {
        beforeRemove: async () => {
          if (created) return;
          created = true;
          await issueKey(store, request, { tagSecret: TEST_KEY_TAG_SECRET, usagePlan: ports.plan });
        },
      },
    );
    const synced = await syncUsagePlan(store, ports.plan, MEMORY_STAGE);
    expect(ports.hasTenantKey('acme')).toBe(true);
    expect(synced.deleted).toEqual([]);
    expect(ports.log).toEqual(['ensure acme', 'ensure acme', 'remove u0', 'ensure acme']);
  });
});
