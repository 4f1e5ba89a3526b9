/**
 * Part of `pagination` in the report: how often the authorizer reads the keys table
 * behind the local gateway's cache. Each key is cached by one request; then many requests with
 * those keys should read nothing until the TTL runs out. A cold cache met by concurrent first
 * requests of one key is shown too: the cache merges lookups in flight, so it should read once.
 */
import autocannon from 'autocannon';
import { bindGateway } from '#infra/local/serve-gateway';
import { documentClient } from '#shared/store/dynamo-client';
import {
  BENCH_AUTH_CACHE_TTL_SECONDS,
  BENCH_NOTE_BODY,
  BENCH_TENANT,
  documentPath,
  notePath,
} from './bench-requests.ts';
import { atMost, type Goal, round } from './bench-stats.ts';

const COUNTER = 'benchKeyReads';
const COLD_BURST = 10;

export interface AuthorizerReadsFigures {
  ttlSeconds: number;
  keys: number;
  requests: number;
  /** Keys-table reads while the first request of each key filled the cache. */
  warmUpReads: number;
  /** Keys-table reads during the requests that followed. */
  reads: number;
  readsPer1000: number;
  readsPerKeyPerTtl: number;
  goal: Goal;
  coldBurst: { concurrent: number; reads: number };
  /**
   * One key adding a note to each of `notes` distinct conversations, within one TTL, as a backend
   * working through its queue does: authorizer calls (each a keys-table read) per key and TTL. Goal
   * 1 (the cache is per key); with the earlier cache per key and path it was one per conversation.
   */
  distinctPaths: { notes: number; authorizerCalls: number; callsPerKeyPerTtl: number; goal: Goal };
}

/** Counts keys-table GetItems that reach DynamoDB from this process (below the SDK's retries). */
export function countKeyReads(keysTable: string): { reads: () => number; stop: () => void } {
  const stack = documentClient().middlewareStack;
  let reads = 0;
  stack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      if (request.headers?.['x-amz-target']?.endsWith('.GetItem')) {
        const body = request.body instanceof Uint8Array ? new TextDecoder().decode(request.body) : String(request.body);
        if ((JSON.parse(body) as { TableName?: string }).TableName === keysTable) reads++;
      }
      return next(args);
    },
    { step: 'deserialize', priority: 'low', name: COUNTER },
  );
  return { reads: () => reads, stop: () => void stack.remove(COUNTER) };
}

/** `items`, `limit` at a time. */
async function runPool<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** The gateway runs in this process, so its authorizer's reads pass the counter. */
export async function measureAuthorizerReads(
  keysTable: string,
  createKey: () => Promise<string>,
  requests: number,
  progress: (message: string) => void,
  distinct: { notes: number; addConversation: (id: string) => Promise<void> },
): Promise<AuthorizerReadsFigures> {
  progress(`authorizer reads: ${requests} requests with a warm cache`);
  const keys = [await createKey(), await createKey()];
  const burstKey = await createKey();
  const gateway = await bindGateway(0);
  const counter = countKeyReads(keysTable);
  try {
    await gateway.serve({ authCacheTtlSeconds: BENCH_AUTH_CACHE_TTL_SECONDS });
    const get = (key: string) =>
      fetch(`${gateway.url}${documentPath()}`, { headers: { Authorization: `Bearer ${key}` } }).then(
        async (response) => {
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`authorizer reads: GET answered ${response.status}`);
        },
      );

    let before = counter.reads();
    await Promise.all(Array.from({ length: COLD_BURST }, () => get(burstKey)));
    const burstReads = counter.reads() - before;

    before = counter.reads();
    for (const key of keys) await get(key);
    const warmUpReads = counter.reads() - before;

    before = counter.reads();
    const result = await autocannon({
      url: `${gateway.url}${documentPath()}`,
      connections: 10,
      amount: requests,
      // Each connection takes the keys in turn.
      requests: keys.map((key) => ({ method: 'GET', headers: { Authorization: `Bearer ${key}` } })),
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`authorizer reads: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    const reads = counter.reads() - before;
    const perKey = (warmUpReads + reads) / keys.length;

    progress(`authorizer reads: one key, notes to ${distinct.notes} distinct conversations`);
    const conversations = Array.from(
      { length: distinct.notes },
      (_, i) => `bench-distinct-${String(i).padStart(5, '0')}`,
    );
    await runPool(conversations, 20, distinct.addConversation);
    const noteKey = await createKey();
    before = counter.reads();
    await runPool(conversations, 10, async (conversationId) => {
      const response = await fetch(`${gateway.url}${notePath(BENCH_TENANT, conversationId)}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${noteKey}`, 'Content-Type': 'application/json' },
        body: BENCH_NOTE_BODY,
      });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`authorizer reads: a note answered ${response.status}`);
    });
    const authorizerCalls = counter.reads() - before;
    return {
      ttlSeconds: BENCH_AUTH_CACHE_TTL_SECONDS,
      keys: keys.length,
      requests: result.requests.total,
      warmUpReads,
      reads,
      readsPer1000: round((reads / result.requests.total) * 1000),
      readsPerKeyPerTtl: round(perKey),
      goal: atMost(perKey, 1),
      coldBurst: { concurrent: COLD_BURST, reads: burstReads },
      distinctPaths: {
        notes: distinct.notes,
        authorizerCalls,
        callsPerKeyPerTtl: authorizerCalls,
        goal: atMost(authorizerCalls, 1),
      },
    };
  } finally {
    counter.stop();
    await gateway.close();
  }
}
