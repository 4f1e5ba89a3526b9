/**
 * Issues a key: generates it, tagged under the stage's current key-tag secret (key-tag.ts), stores
 * only its hash, and returns it once for the operator. On a
 * deployed stage its usage owner first gets its usage-plan key if it has none yet (the
 * tenant's for a key of one tenant, shared by all of the tenant's keys; a key of its own for a key
 * of several tenants), so the key is throttled from its first request. A tenant key that cannot be
 * stored leaves at most that usage key behind, which `cxm keys sync` deletes when no active key
 * needs it.
 * Once stored, the usage key is ensured again: a revoke of the tenant's last other key running at
 * the same moment may have deleted it between the first ensure and the store (it checked for other
 * keys before this one existed); after the store, either that revoke sees this key and keeps the
 * usage key, or its delete came first and the second ensure puts it back.
 */

import { generateKey } from './key-format.ts';
import type { KeysStore, StoredKey } from './key-records.ts';
import { type UsageOwner, usageKeyName, usageOwner } from './usage-identity.ts';
import type { UsagePlanKeys } from './usage-plan-keys.ts';

export interface KeyRequest {
  tenants: string[];
  scopes: string[];
  name: string;
  expiresAt?: string | undefined;
}

export interface IssuedKey {
  key: string;
  stored: StoredKey;
  /** The API Gateway key the key is throttled through on a deployed stage: whose, its name and id. */
  usageKey: { owner: UsageOwner; name: string; id: string } | undefined;
  /**
   * Why the usage key could not be ensured again once the key was stored (the key is stored and
   * returned all the same: it was ensured before); `cxm keys sync` repairs it.
   */
  unconfirmed: string | undefined;
}

/** How a key is issued: the tag secret (AWSCURRENT of the stage's, or the local one), when, and the stage's usage plan. */
export interface IssueOptions {
  tagSecret: string;
  now?: Date;
  usagePlan?: UsagePlanKeys | undefined;
}

/**
 * Issues a key for `request`; the key itself is in the answer and nowhere else.
 *
 * @example
 * const { key, stored } = await issueKey(store, { tenants: ['acme'], scopes: ['cxm:*'], name: 'billing' }, { tagSecret, usagePlan });
 * // key: 'cxm_<keyId>_<secret>_<tag>'; stored: its record, keyed by the key's SHA-256
 */
export async function issueKey(
  store: KeysStore,
  request: KeyRequest,
  { tagSecret, now = new Date(), usagePlan }: IssueOptions,
): Promise<IssuedKey> {
  const { keyId, key, keyHash } = generateKey(tagSecret);
  const tenants = [...new Set(request.tenants)];
  const owner = usageOwner({ keyId, tenants });
  let usageKey: IssuedKey['usageKey'];
  // A plan that refuses the usage key stops here, before the tenant key exists.
  if (usagePlan && owner)
    usageKey = { owner, name: usageKeyName(usagePlan.stage, owner), id: (await usagePlan.ensure(owner)).id };
  const stored: StoredKey = {
    keyId,
    keyHash,
    tenants,
    scopes: [...new Set(request.scopes)],
    name: request.name,
    createdAt: now.toISOString(),
    tagged: true,
    expiresAt: request.expiresAt,
  };
  await store.create(stored);
  let unconfirmed: string | undefined;
  if (usagePlan && owner && usageKey) {
    try {
      // Usually two reads that change nothing; the id differs only if it was deleted meanwhile.
      usageKey.id = (await usagePlan.ensure(owner)).id;
    } catch (error) {
      // The key is stored: losing it now (never shown to the operator) would be worse.
      unconfirmed = error instanceof Error ? error.message : String(error);
    }
  }
  return { key, stored, usageKey, unconfirmed };
}
