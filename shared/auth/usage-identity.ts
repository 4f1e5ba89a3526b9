/**
 * Usage-plan identity per tenant (issue 14, replacing D10's key per tenant key). Every request is
 * counted against one tenant's API Gateway key, so all keys of a tenant share its rate (as Zendesk
 * and Intercom limit per account) and a region's 10 000 API keys become 10 000 tenants.
 *
 * The key's value is derived, not stored: the authorizer computes it from the stage and the tenant
 * without a read, and `cxm keys` recreates a lost key with the same value, so no key record ever
 * holds a stale one. It is not a credential: with the key source AUTHORIZER, API Gateway takes the
 * usage key only from our authorizer and ignores any `x-api-key` a client sends.
 */
import { createHash } from 'node:crypto';

/** The name of a tenant's API Gateway key; `cxm keys sync` finds the stage's keys by this prefix. */
export function tenantUsageKeyName(stage: string, tenantId: string): string {
  return `${tenantUsageKeyPrefix(stage)}${tenantId}`;
}

export function tenantUsageKeyPrefix(stage: string): string {
  return `cxm-${stage}-tenant-`;
}

/**
 * The value of a tenant's API Gateway key: 64 hex characters (API Gateway wants 20 to 128), with
 * the stage inside, because values are unique per region and two stages may share one.
 */
export function tenantUsageKeyValue(stage: string, tenantId: string): string {
  return createHash('sha256').update(`cxm usage identity\0${stage}\0${tenantId}`, 'utf8').digest('hex');
}

/**
 * The tenant a request is counted against: the path's, when the key may act for it. Otherwise the
 * key's first tenant (in its own order, fixed at creation): a request for a tenant the key does not
 * hold is refused further on, and must not spend that other tenant's rate on the way.
 */
export function usageTenant(keyTenants: readonly string[], pathTenant: string | undefined): string | undefined {
  if (pathTenant !== undefined && keyTenants.includes(pathTenant)) return pathTenant;
  return keyTenants[0];
}
