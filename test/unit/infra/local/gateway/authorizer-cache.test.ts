/**
 * The local gateway's authorizer cache: results live for the TTL, and concurrent first requests of
 * one key share one authorizer call (one keys-table read) while the cache is on.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { AuthorizerCache } from '#infra/local/gateway/authorizer-cache';

const allowed: APIGatewayAuthorizerResult = {
  principalId: 'k',
  policyDocument: { Version: '2012-10-17', Statement: [] },
};

/** An authorizer that answers after a tick and counts its calls. */
function countingAuthorizer(outcome: () => APIGatewayAuthorizerResult = () => allowed) {
  const calls = { count: 0 };
  const authorize = async () => {
    calls.count++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    return outcome();
  };
  return { calls, authorize };
}

describe('AuthorizerCache', () => {
  it('merges concurrent first lookups of one key into one call, then serves from the cache', async () => {
    const cache = new AuthorizerCache(60);
    const { calls, authorize } = countingAuthorizer();
    const results = await Promise.all(Array.from({ length: 10 }, () => cache.get('Bearer a', authorize)));
    expect(results).toEqual(Array(10).fill(allowed));
    await cache.get('Bearer a', authorize);
    expect(calls.count).toBe(1);
  });

  it('keeps keys apart', async () => {
    const cache = new AuthorizerCache(60);
    const { calls, authorize } = countingAuthorizer();
    await Promise.all(
      ['Bearer a', 'Bearer b', 'Bearer a', 'Bearer b'].map((identity) => cache.get(identity, authorize)),
    );
    expect(calls.count).toBe(2);
  });

  it('shares a refusal with the requests that waited for it, and asks again afterwards', async () => {
    const cache = new AuthorizerCache(60);
    const { calls, authorize } = countingAuthorizer(() => {
      throw new Error('Unauthorized');
    });
    const outcomes = await Promise.allSettled(Array.from({ length: 3 }, () => cache.get('Bearer bad', authorize)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(calls.count).toBe(1);
    await expect(cache.get('Bearer bad', authorize)).rejects.toThrow('Unauthorized');
    expect(calls.count).toBe(2);
  });

  it('with the cache off (TTL 0), every request is authorized on its own', async () => {
    const cache = new AuthorizerCache(0);
    const { calls, authorize } = countingAuthorizer();
    await Promise.all(Array.from({ length: 5 }, () => cache.get('Bearer a', authorize)));
    expect(calls.count).toBe(5);
  });
});
