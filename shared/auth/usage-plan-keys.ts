/**
 * The port to a stage's usage plan (D10). On a deployed stage every tenant key has its own API
 * Gateway key in the plan; the authorizer names it (`usageIdentifierKey`) so API Gateway throttles
 * each tenant key separately. The local stack has no plan: its gateway keeps a bucket per key id.
 */
export interface UsageKey {
  /** API Gateway's id of the key, to delete it on revocation. */
  id: string;
  /** The key's value, which the authorizer returns as `usageIdentifierKey`. */
  value: string;
}

export interface UsagePlanKeys {
  /** Creates an API Gateway key for the tenant key `keyId` and adds it to the stage's plan. */
  add(keyId: string): Promise<UsageKey>;
  /** Deletes the API Gateway key; one already gone is not an error. */
  remove(usageKeyId: string): Promise<void>;
}
