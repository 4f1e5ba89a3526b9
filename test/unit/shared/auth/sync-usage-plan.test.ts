/**
 * `syncUsagePlan` against in-memory ports: which usage owners get their usage
 * key, and which of the stage's API Gateway keys it deletes, by name: `cxm-<stage>-tenant-<id>` and
 * `cxm-<stage>-key-<keyId>` that no active key needs, anything else never. (The CLI against a fake API Gateway:
 * test/integration/usage-plan-keys.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { syncUsagePlan } from '#shared/auth/sync-usage-plan';
import { tenantUsageKeyName, usageKeyName } from '#shared/auth/usage-identity';
import {
  memoryPlan as memoryPlanWithRemoveTenant,
  memoryStore,
  MEMORY_STAGE as STAGE,
  storedKey,
} from '#test/support/memory-key-ports';

const NOW = new Date('2027-03-01T12:00:00Z');

/** Sync deletes by id, from the listing: it never deletes a tenant's key by name. */
function memoryPlan(initial: Record<string, string> = {}) {
  const ports = memoryPlanWithRemoveTenant(initial);
  ports.plan.removeOwner = () => {
    throw new Error('sync deletes by id, from the listing');
  };
  return ports;
}

describe('syncUsagePlan', () => {
  it('ensures, once each and in order, every usage owner of an active key; revoked and expired keys need none', async () => {
    const partner = storedKey(['globex', 'acme']);
    const store = memoryStore([
      partner,
      storedKey(['acme']),
      storedKey(['initech'], { revokedAt: '2027-02-01T00:00:00Z' }),
      storedKey(['umbrella'], { expiresAt: '2027-03-01T11:59:59Z' }),
      storedKey(['hooli'], { expiresAt: '2027-03-01T12:00:01Z' }),
    ]);
    const { plan, log } = memoryPlan();
    const progress: string[] = [];
    const synced = await syncUsagePlan(store, plan, STAGE, {
      now: NOW,
      onOwner: (done, total) => progress.push(`${done}/${total}`),
    });
    const partnerKey = usageKeyName(STAGE, { kind: 'key', keyId: partner.keyId });
    expect(synced).toEqual({
      owners: [partnerKey, tenantUsageKeyName(STAGE, 'acme'), tenantUsageKeyName(STAGE, 'hooli')],
      deleted: [],
    });
    // globex is held only by the key of several tenants: it needs no tenant key.
    expect(log).toEqual([`ensure key:${partner.keyId}`, 'ensure acme', 'ensure hooli']);
    expect(progress).toEqual(['1/3', '2/3', '3/3']);
  });

  it("deletes the tenant keys of tenants without an active key, and only those of the stage's tenant keys", async () => {
    const store = memoryStore([storedKey(['acme']), storedKey(['initech'], { revokedAt: '2027-02-01T00:00:00Z' })]);
    const { plan, keys, log } = memoryPlan({
      a: tenantUsageKeyName(STAGE, 'acme'),
      i: tenantUsageKeyName(STAGE, 'initech'),
      g: tenantUsageKeyName(STAGE, 'gone'),
    });
    const synced = await syncUsagePlan(store, plan, STAGE, { now: NOW });
    expect(synced.deleted).toEqual([
      { id: 'i', name: 'cxm-prod-tenant-initech' },
      { id: 'g', name: 'cxm-prod-tenant-gone' },
    ]);
    expect([...keys.keys()]).toEqual(['a']);
    expect(log).toEqual(['ensure acme', 'remove i', 'remove g']);
  });

  it('a tenant whose id looks like a key id is still a tenant: its key stays while it has an active key, and goes with the last', async () => {
    const store = memoryStore([storedKey(['abcdef012345'])]);
    const { plan, keys } = memoryPlan({
      t: tenantUsageKeyName(STAGE, 'abcdef012345'),
      u: tenantUsageKeyName(STAGE, '999999999999'),
    });
    const synced = await syncUsagePlan(store, plan, STAGE, { now: NOW });
    expect(synced).toEqual({
      owners: [tenantUsageKeyName(STAGE, 'abcdef012345')],
      deleted: [{ id: 'u', name: 'cxm-prod-tenant-999999999999' }],
    });
    expect([...keys.keys()]).toEqual(['t']);
  });

  it("leaves every other name alone, the stage's prefix followed by anything but tenant- or key-", async () => {
    const others = {
      d1: 'cxm-prod-abcdef012345', // a key id after the prefix
      d2: 'cxm-prod-000000000000',
      o1: 'cxm-prod-dashboard',
      o2: 'cxm-prod-abcdef01234', // 11 characters
      o3: 'cxm-prod-abcdef0123456', // 13
      o4: 'cxm-prod-ABCDEF012345', // key ids are lowercase
      o5: 'cxm-prod-abcdef-12345',
      o6: 'cxm-prod-tenant', // no tenant after the prefix's dash
      o7: 'cxm-prod-', // the stage prefix alone
    };
    const { plan, keys, log } = memoryPlan(others);
    const synced = await syncUsagePlan(memoryStore([]), plan, STAGE, { now: NOW });
    expect(synced).toEqual({ owners: [], deleted: [] });
    expect(log).toEqual([]);
    expect([...keys.keys()]).toEqual(Object.keys(others));
  });

  it('deletes the tenant keys of tenants held only by keys of several tenants (those are throttled through keys of their own), and the key of a key of several tenants no longer active', async () => {
    const partner = storedKey(['acme', 'globex']);
    const gone = storedKey(['acme', 'initech'], { revokedAt: '2027-02-01T00:00:00Z' });
    const initial = {
      a: tenantUsageKeyName(STAGE, 'acme'),
      g: tenantUsageKeyName(STAGE, 'globex'),
      x: usageKeyName(STAGE, { kind: 'key', keyId: gone.keyId }),
    };
    const { plan, keys } = memoryPlan(initial);
    const synced = await syncUsagePlan(memoryStore([partner, gone]), plan, STAGE, { now: NOW });
    expect(synced).toEqual({
      owners: [usageKeyName(STAGE, { kind: 'key', keyId: partner.keyId })],
      deleted: [
        { id: 'a', name: initial.a },
        { id: 'g', name: initial.g },
        { id: 'x', name: initial.x },
      ],
    });
    expect([...keys.keys()]).toEqual(['new0']);
  });

  it('a second run changes nothing', async () => {
    const store = memoryStore([storedKey(['acme']), storedKey(['globex'])]);
    const { plan, keys, log } = memoryPlan({ x: tenantUsageKeyName(STAGE, 'gone'), d: 'cxm-prod-abcdef012345' });
    await syncUsagePlan(store, plan, STAGE, { now: NOW });
    const after = [...keys];
    expect(after.map(([id]) => id)).toEqual(['d', 'new0', 'new1']);
    log.length = 0;
    const again = await syncUsagePlan(store, plan, STAGE, { now: NOW });
    expect(again).toEqual({
      owners: [tenantUsageKeyName(STAGE, 'acme'), tenantUsageKeyName(STAGE, 'globex')],
      deleted: [],
    });
    expect([...keys]).toEqual(after);
    expect(log).toEqual(['ensure acme', 'ensure globex']);
  });
});
