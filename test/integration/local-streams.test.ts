/**
 * The local stream reader plays a stream's event source mapping: with a ParallelizationFactor, one
 * partition key's burst is handed over in its own lane, in order, and does not hold back the
 * records of other keys; without one, the shard's records come in one line, as Lambda's do.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { type StreamReaders, type StreamTarget, startStreamReaders } from '#infra/local/emulators/local-streams';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { documentClient } from '#shared/store/dynamo-client';
import { tablesOfItsOwn, workerDynamo } from '#test/support/worker-dynamo';

/**
 * How long after the other key's record is written the function holds the busy key's first batch
 * at most: until that record is handed over, so with lanes it is, and without them it comes after
 * the burst all the same. Timed from that write, however slowly a loaded store takes the burst.
 */
const HOLD_AFTER_WRITE_MS = 3_000;

let readers: StreamReaders | undefined;
afterEach(async () => {
  await readers?.stop();
  readers = undefined;
});

/** Writes 40 notes of one conversation, then one of another; answers the order the function saw them in. */
async function handOverOrder(
  parallelization: number | undefined,
): Promise<{ seen: string[]; heldTillTimeout: boolean }> {
  const dynamo = workerDynamo();
  const tables = await tablesOfItsOwn('streams');
  pointAtLocalDynamo(dynamo, tables);
  const seen: string[] = [];
  let release: () => void = () => undefined;
  let heldTillTimeout = false;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const target: StreamTarget = {
    name: 'lanes',
    sources: [{ tableName: tables.conversations, pattern: {} }],
    batchSize: 10,
    ...(parallelization !== undefined && { parallelization }),
    async invoke(event: DynamoDBStreamEvent) {
      const ids = event.Records.map((record) => String(record.dynamodb?.NewImage?.id?.S));
      if (ids.some((id) => id.startsWith('busy'))) await held;
      seen.push(...ids);
      if (ids.includes('calm')) release();
      return { batchItemFailures: [] };
    },
  };
  readers = startStreamReaders(dynamo, 'us-east-1', [target], () => undefined, 50);
  await readers.ready;
  const client = documentClient();
  const put = (pk: string, id: string) =>
    client.send(new PutCommand({ TableName: tables.conversations, Item: { pk, sk: `NOTE#${id}`, id } }));
  for (let index = 0; index < 40; index++) await put('acme#busy', `busy-${String(index).padStart(2, '0')}`);
  await put('acme#calm', 'calm');
  setTimeout(() => {
    heldTillTimeout = !seen.includes('calm');
    release();
  }, HOLD_AFTER_WRITE_MS);
  await readers.caughtUp();
  return { seen, heldTillTimeout };
}

describe('local stream lanes', () => {
  it("with a ParallelizationFactor, another key's record passes a key's burst; each key's records keep their order", async () => {
    const { seen, heldTillTimeout } = await handOverOrder(10);
    // Handed over while the burst's first batch was still held, reading going on meanwhile.
    expect(heldTillTimeout).toBe(false);
    const busy = seen.filter((id) => id.startsWith('busy'));
    expect(busy).toEqual([...busy].sort());
    expect(busy).toHaveLength(40);
    expect(seen.indexOf('calm')).toBeLessThan(seen.indexOf('busy-39'));
  });

  it("without one, the shard's records come in the order they were written", async () => {
    const { seen } = await handOverOrder(undefined);
    expect(seen.at(-1)).toBe('calm');
  });
});
