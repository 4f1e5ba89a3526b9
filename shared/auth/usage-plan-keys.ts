/**
 * The port to a stage's usage plan (issue 14). On a deployed stage every tenant that holds an
 * active key has one API Gateway key in the plan (see usage-identity.ts); the authorizer names it
 * (`usageIdentifierKey`) so API Gateway throttles each tenant, whichever of its keys calls. The
 * local stack has no plan: its gateway keeps a token bucket per usage identity instead.
 */
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
  /**
   * Makes sure the tenant's API Gateway key exists with its derived value, is enabled and is in
   * the stage's plan; creates or repairs only what is missing, so running it again changes nothing.
   */
  ensureTenant(tenantId: string): Promise<UsageKey>;
  /** Deletes the tenant's API Gateway key; the ids it deleted (none when it had none). */
  removeTenant(tenantId: string): Promise<string[]>;
  /**
   * Deletes an API Gateway key by id (the per-key ones D10 made); false when it was already gone,
   * which is not an error.
   */
  remove(usageKeyId: string): Promise<boolean>;
  /** Every API Gateway key of the stage (tagged with it) whose name starts with `cxm-<stage>-`; refused for a stage without a plan. */
  list(): Promise<StageUsageKey[]>;
}
