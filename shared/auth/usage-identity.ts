/**
 * Usage-plan identity (rate limits per tenant; a key of several tenants has its own). Every request
 * is counted against one API Gateway key, its usage owner's:
 * - a key of one tenant is throttled through its tenant's key, so all keys of a tenant share its
 *   rate (as Zendesk and Intercom limit per account) and a new key is no way around the limit;
 * - a key of several tenants (rare: a partner acting for tenants) is throttled through a key of its
 *   own, so the authorizer's answer, and the usage key in it, is the same for every path. The
 *   gateway can then cache one answer per key, not per key and path.
 *
 * The key's value is derived, not stored: the authorizer computes it without a read, and `cxm keys`
 * recreates a lost key with the same value, so no key record ever holds a stale one. It is not a
 * credential: with the key source AUTHORIZER, API Gateway takes the usage key only from our
 * authorizer and ignores any `x-api-key` a client sends.
 */
import { createHash } from 'node:crypto';

/** Whose API Gateway key a tenant key is throttled through. */
export type UsageOwner = { kind: 'tenant'; tenantId: string } | { kind: 'key'; keyId: string };

/** Undefined for a key without tenants (the authorizer refuses it). */
export function usageOwner(key: { keyId: string; tenants: readonly string[] }): UsageOwner | undefined {
  if (key.tenants.length === 0) return undefined;
  return key.tenants.length === 1 ? { kind: 'tenant', tenantId: key.tenants[0]! } : { kind: 'key', keyId: key.keyId };
}

export function tenantUsageKeyPrefix(stage: string): string {
  return `cxm-${stage}-tenant-`;
}

export function keyUsageKeyPrefix(stage: string): string {
  return `cxm-${stage}-key-`;
}

/** The name of an owner's API Gateway key; `cxm keys sync` finds the stage's keys by these prefixes. */
export function usageKeyName(stage: string, owner: UsageOwner): string {
  return owner.kind === 'tenant'
    ? `${tenantUsageKeyPrefix(stage)}${owner.tenantId}`
    : `${keyUsageKeyPrefix(stage)}${owner.keyId}`;
}

/**
 * The value of an owner's API Gateway key: 64 hex characters (API Gateway wants 20 to 128), with
 * the stage inside, because values are unique per region and two stages may share one. A tenant's
 * is what it has been since the limits became per tenant, so deployed tenant keys keep their value.
 */
export function usageKeyValue(stage: string, owner: UsageOwner): string {
  // A key's differs from every tenant's before the stage even starts, whatever the tenant id holds.
  const identity =
    owner.kind === 'tenant'
      ? `cxm usage identity\0${stage}\0${owner.tenantId}`
      : `cxm usage identity of a key\0${stage}\0${owner.keyId}`;
  return createHash('sha256').update(identity, 'utf8').digest('hex');
}

export function tenantUsageKeyName(stage: string, tenantId: string): string {
  return usageKeyName(stage, { kind: 'tenant', tenantId });
}

export function tenantUsageKeyValue(stage: string, tenantId: string): string {
  return usageKeyValue(stage, { kind: 'tenant', tenantId });
}
