/**
 * The gateway's authorizer result cache: keyed by the identity sources (the Authorization header
 * value and the path), for `ttlSeconds` (0 disables it). Only allowed results are cached, as in API Gateway a
 * refused token is asked again. With the cache on, concurrent first requests of one key wait for
 * one authorizer call instead of each making its own (one keys-table read, not one per request);
 * its outcome, a refusal included, is shared by those requests only.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';

interface Entry {
  result: APIGatewayAuthorizerResult;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

export class AuthorizerCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<APIGatewayAuthorizerResult>>();

  constructor(private readonly ttlSeconds: number) {}

  async get(
    identity: string,
    authorize: () => Promise<APIGatewayAuthorizerResult>,
  ): Promise<APIGatewayAuthorizerResult> {
    const now = Date.now();
    const cached = this.entries.get(identity);
    if (cached && cached.expiresAt > now) return cached.result;
    this.entries.delete(identity);
    // Without a cache every request is authorized on its own, as API Gateway does then.
    if (this.ttlSeconds === 0) return authorize();
    const pending = this.inFlight.get(identity);
    if (pending) return pending;
    const lookup = authorize()
      .then((result) => {
        if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
        this.entries.set(identity, { result, expiresAt: now + this.ttlSeconds * 1000 });
        return result;
      })
      .finally(() => this.inFlight.delete(identity));
    this.inFlight.set(identity, lookup);
    return lookup;
  }
}

/** Whether the policy allows invoking `arn` (IAM wildcards `*` and `?`; an explicit Deny wins). */
export function policyAllows(result: APIGatewayAuthorizerResult, arn: string): boolean {
  let allowed = false;
  for (const statement of result.policyDocument.Statement) {
    const resources = 'Resource' in statement ? [statement.Resource].flat() : [];
    const matches = resources.some((resource) => {
      const pattern = String(resource)
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.');
      return new RegExp(`^${pattern}$`).test(arn);
    });
    if (!matches) continue;
    if (statement.Effect === 'Deny') return false;
    if (statement.Effect === 'Allow') allowed = true;
  }
  return allowed;
}
