/** Whose rate a key is throttled by, and the API Gateway key that stands for it. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  tenantUsageKeyName,
  tenantUsageKeyValue,
  usageKeyName,
  usageKeyValue,
  usageOwner,
} from '#shared/auth/usage-identity';

describe('usageOwner', () => {
  it("is the tenant of a key of one tenant, whatever path it calls: all of the tenant's keys share its rate", () => {
    expect(usageOwner({ keyId: 'k1abcdefghij', tenants: ['acme'] })).toEqual({ kind: 'tenant', tenantId: 'acme' });
  });

  it('is the key itself for a key of several tenants, so its usage key is the same on every path', () => {
    expect(usageOwner({ keyId: 'k1abcdefghij', tenants: ['acme', 'acme-eu'] })).toEqual({
      kind: 'key',
      keyId: 'k1abcdefghij',
    });
  });

  it('is undefined for a key without tenants (the authorizer refuses it)', () => {
    expect(usageOwner({ keyId: 'k1abcdefghij', tenants: [] })).toBeUndefined();
  });
});

describe("a key's own usage key", () => {
  it('is named cxm-<stage>-key-<keyId>, with a value distinct from every tenant key and per stage', () => {
    const owner = { kind: 'key', keyId: 'k1abcdefghij' } as const;
    expect(usageKeyName('prod', owner)).toBe('cxm-prod-key-k1abcdefghij');
    const value = usageKeyValue('prod', owner);
    expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(usageKeyValue('staging', owner)).not.toBe(value);
    expect(value).not.toBe(tenantUsageKeyValue('prod', 'k1abcdefghij'));
    expect(value).not.toBe(tenantUsageKeyValue('prod', 'key\0k1abcdefghij'));
  });
});

describe('the tenant usage key', () => {
  it('is named cxm-<stage>-tenant-<id>', () => {
    expect(tenantUsageKeyName('prod', 'acme')).toBe('cxm-prod-tenant-acme');
  });

  it('has a value API Gateway accepts (20-128 characters), the same on every call, distinct per tenant and per stage', () => {
    const value = tenantUsageKeyValue('prod', 'acme');
    // What deployed tenant keys hold since rate limits became per tenant: it must never change.
    expect(value).toBe(createHash('sha256').update('cxm usage identity\0prod\0acme', 'utf8').digest('hex'));
    expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(tenantUsageKeyValue('prod', 'acme')).toBe(value);
    expect(tenantUsageKeyValue('prod', 'acme-eu')).not.toBe(value);
    expect(tenantUsageKeyValue('staging', 'acme')).not.toBe(value);
    // The separator keeps (stage, tenant) pairs apart that would concatenate alike.
    expect(tenantUsageKeyValue('a-b', 'c')).not.toBe(tenantUsageKeyValue('a', 'b-c'));
  });
});
