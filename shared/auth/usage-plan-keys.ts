/**
 * The port to a stage's usage plan (rate limits per tenant). On a deployed stage every usage owner
 * of an active key (its tenant, or the key itself when it holds several tenants: usage-identity.ts)
 * has one API Gateway key in the plan; the authorizer names it (`usageIdentifierKey`) so API
 * Gateway throttles each tenant, whichever of its keys calls. The local stack has no plan: its
 * gateway keeps a token bucket per usage identity instead.
 */
import type { UsageOwner } from './usage-identity.ts';

export interface UsageKey {
  /** API Gateway's id of the key. */
  id: string;
  /** The key's value, which the authorizer returns as `usageIdentifierKey`. */
  value: string;
}

/** An API Gateway key of the stage, as `list` finds it. */
export interface StageUsageKey {
  id: string;
  name: string;
}

export interface UsagePlanKeys {
  /** The stage whose plan this is (its keys' names carry it). */
  readonly stage: string;
  /**
   * Makes sure the owner's API Gateway key exists with its derived value, is enabled and is in
   * the stage's plan; creates or repairs only what is missing, so running it again changes nothing.
   */
  ensure(owner: UsageOwner): Promise<UsageKey>;
  /** Deletes the owner's API Gateway key; the ids it deleted (none when it had none). */
  removeOwner(owner: UsageOwner): Promise<string[]>;
  /**
   * Deletes an API Gateway key by id (`sync` deletes what list found unneeded); false when it was
   * already gone, which is not an error.
   */
  remove(usageKeyId: string): Promise<boolean>;
  /** Every API Gateway key of the stage (tagged with it) whose name starts with `cxm-<stage>-`; refused for a stage without a plan. */
  list(): Promise<StageUsageKey[]>;
}
