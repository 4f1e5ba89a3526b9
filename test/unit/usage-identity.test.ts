/** Which tenant a request is throttled as, and the API Gateway key that stands for it (issue 14). */
import { describe, expect, it } from 'vitest';
import { tenantUsageKeyName, tenantUsageKeyValue, usageTenant } from '#shared/auth/usage-identity';

describe('usageTenant', () => {
  it('is the path tenant when the key holds it, whichever of its tenants it is', () => {
    expect(usageTenant(['acme', 'acme-eu'], 'acme')).toBe('acme');
    expect(usageTenant(['acme', 'acme-eu'], 'acme-eu')).toBe('acme-eu');
  });

  it("is the key's first tenant for a path tenant it does not hold, so another tenant's rate is never spent", () => {
    expect(usageTenant(['acme', 'acme-eu'], 'globex')).toBe('acme');
    expect(usageTenant(['acme'], 'ACME')).toBe('acme');
    expect(usageTenant(['acme'], undefined)).toBe('acme');
  });

  it('is undefined for a key without tenants (the authorizer refuses it)', () => {
    expect(usageTenant([], 'acme')).toBeUndefined();
  });
});

describe('the tenant usage key', () => {
  it('is named cxm-<stage>-tenant-<id>', () => {
    expect(tenantUsageKeyName('prod', 'acme')).toBe('cxm-prod-tenant-acme');
  });

  it('has a value API Gateway accepts (20-128 characters), the same on every call, distinct per tenant and per stage', () => {
    const value = tenantUsageKeyValue('prod', 'acme');
    expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(tenantUsageKeyValue('prod', 'acme')).toBe(value);
    expect(tenantUsageKeyValue('prod', 'acme-eu')).not.toBe(value);
    expect(tenantUsageKeyValue('staging', 'acme')).not.toBe(value);
    // The separator keeps (stage, tenant) pairs apart that would concatenate alike.
    expect(tenantUsageKeyValue('a-b', 'c')).not.toBe(tenantUsageKeyValue('a', 'b-c'));
  });
});
