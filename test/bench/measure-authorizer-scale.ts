/**
 * `authorizerScale`: keys-table reads of the authorizer per 1 000 requests when many
 * distinct keys call at once, through the local gateway as `npm start` runs it (the authorizer
 * cache on with its default TTL, the default rate limit). Every key is used `uses` times in a
 * shuffled order by `concurrency` clients, so a key's first requests often overlap: the ideal is
 * one read per key per TTL, whatever the overlap, i.e. 1 000 / uses reads per 1 000 requests.
 * Each key is its own tenant's (many tenants, as the issue has it): the gateway throttles per
 * tenant, and one tenant at this rate would be refused with 429 long before the end.
 */

import { DEFAULT_RATE_LIMIT } from '#infra/cdk/stage/default-rate-limits';
import { indexedTasks, runBounded } from '#infra/cli/seed/run-bounded';
import { bindGateway } from '#infra/local/serve-gateway';
import { BENCH_COLLECTION } from './bench-requests.ts';
import { atMost, type Goal, round } from './bench-stats.ts';
import { countKeyReads } from './measure-authorizer-reads.ts';

/** Key writes in flight while the keys are created (straight to the keys store, not timed). */
const WRITE_CONCURRENCY = 25;
/** A fixed seed: every run sends the keys in the same order. */
const SHUFFLE_SEED = 14;

export interface AuthorizerScaleSizes {
  keys: number;
  /** Requests per key. */
  uses: number;
  /** Requests in flight at once. */
  concurrency: number;
}

export interface AuthorizerScaleFigures {
  /** The authorizer cache TTL in force: the gateway's default, as `npm start` has it. */
  ttlSeconds: number;
  keys: number;
  requests: number;
  concurrency: number;
  /** How long the requests took: within one TTL, the ideal is one read per key. */
  seconds: number;
  /** Keys-table GetItems that reached DynamoDB during the requests. */
  storeReads: number;
  storeReadsPer1000: number;
  /** At most one read per key per TTL, per 1 000 requests (1 000 / uses when the run fits in one TTL). */
  goal: Goal;
}

/** Fisher-Yates with a small seeded generator (mulberry32), so the order is the same every run. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The gateway runs in this process, so its authorizer's reads pass the counter. */
export async function measureAuthorizerScale(
  keysTable: string,
  createKey: (tenantId: string) => Promise<string>,
  sizes: AuthorizerScaleSizes,
  progress: (message: string) => void,
): Promise<AuthorizerScaleFigures> {
  progress(`authorizer at scale: creating ${sizes.keys} keys`);
  const keys: { tenantId: string; key: string }[] = [];
  await runBounded(
    indexedTasks(sizes.keys, async (i) => {
      const tenantId = `bench-scale-${i}`;
      keys.push({ tenantId, key: await createKey(tenantId) });
    }),
    WRITE_CONCURRENCY,
  );
  const warmUp = { tenantId: 'bench-scale-warm-up', key: await createKey('bench-scale-warm-up') };
  const order = shuffled(
    keys.flatMap((key) => Array.from({ length: sizes.uses }, () => key)),
    SHUFFLE_SEED,
  );

  const gateway = await bindGateway(0);
  const counter = countKeyReads(keysTable);
  try {
    // No TTL given: the gateway's default, as `npm start` without CXM_AUTH_CACHE_TTL.
    const { authCacheTtlSeconds } = await gateway.serve({ rateLimit: DEFAULT_RATE_LIMIT });
    progress(
      `authorizer at scale: ${order.length} requests, ${sizes.keys} keys, ${sizes.concurrency} at once (cache TTL ${authCacheTtlSeconds} s)`,
    );
    // A list of the tenant's documents: 200 (empty) for every tenant, nothing to seed.
    const get = async ({ tenantId, key }: { tenantId: string; key: string }) => {
      const response = await fetch(`${gateway.url}/api/v1/provisioning/tenants/${tenantId}/${BENCH_COLLECTION}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      await response.arrayBuffer();
      // A refused or throttled request would not measure the cache.
      if (response.status !== 200) throw new Error(`authorizer at scale: GET answered ${response.status}`);
    };
    // The first request pays for what a fresh process sets up once (the SDK's endpoint and
    // credentials, the first connections); it has a key of its own, so the figure counts only
    // the measured keys' reads and its time only their requests.
    await get(warmUp);
    const before = counter.reads();
    const started = performance.now();
    await runBounded(
      indexedTasks(order.length, (i) => get(order[i]!)),
      sizes.concurrency,
    );
    const seconds = (performance.now() - started) / 1000;
    const storeReads = counter.reads() - before;
    const per1000 = (storeReads / order.length) * 1000;
    // One read per key per TTL: a run longer than the TTL lets each key expire and be read again.
    const windows = Math.floor(seconds / authCacheTtlSeconds) + 1;
    return {
      ttlSeconds: authCacheTtlSeconds,
      keys: sizes.keys,
      requests: order.length,
      concurrency: sizes.concurrency,
      seconds: round(seconds, 1),
      storeReads,
      storeReadsPer1000: round(per1000),
      goal: atMost(round(per1000), round(((sizes.keys * windows) / order.length) * 1000)),
    };
  } finally {
    counter.stop();
    await gateway.close();
  }
}
