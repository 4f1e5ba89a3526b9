/**
 * Lambda's DynamoDB stream event source mappings, locally: DynamoDB Local keeps each table's stream
 * as DynamoDB does, and this reads it as the mapping would, from the records written once reading
 * began (LATEST), a shard at a time, keeping to each mapping's filter, and hands the function
 * batches of up to 10 in order. A batch the function fails on (or reports a record of) is given again
 * from the first failed record, after a second and then two, as Lambda retries from the failed
 * sequence number; one still failing is reported, where a stage would send it to the mapping's
 * dead-letter queue, and reading goes on.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { LocalDynamoConnection } from './dynamodb-local.ts';
import { matchesEventPattern } from './match-event-pattern.ts';

/** A function reading table streams, with the filter of each. */
export interface StreamTarget {
  name: string;
  sources: readonly { tableName: string; pattern: Record<string, unknown> }[];
  invoke(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse | undefined>;
}

export interface StreamReaders {
  /** Resolves once each stream's place is taken: a record written after it is read. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const BATCH = 10;
/** Failed rounds in a row after which reading is reported as failing. */
const LASTING_FAILURE_ROUNDS = 5;
/** Rounds between two looks for new shards. */
const DESCRIBE_EVERY = 8;
const RETRY_DELAYS_MS = [1000, 2000];

interface ShardReader {
  iterator: string | undefined;
  /** The last record read, to take the place again when the iterator is refused. */
  last?: string;
}

/**
 * Reads the streams of `targets`' sources every `pollMs` until stopped.
 *
 * @example const readers = startStreamReaders(store, region, [fanOutTarget], report);
 */
export function startStreamReaders(
  store: LocalDynamoConnection,
  region: string,
  targets: readonly StreamTarget[],
  report: (line: string, error?: unknown) => void,
  pollMs = 300,
): StreamReaders {
  const config = { endpoint: store.endpoint, region, credentials: store.credentials };
  const dynamo = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();

  const readers = targets.flatMap((target) =>
    target.sources.map((source) => ({
      target,
      source,
      arn: undefined as string | undefined,
      shards: new Map<string, ShardReader>(),
      started: false,
    })),
  );

  async function deliver(target: StreamTarget, arn: string, records: _Record[]): Promise<void> {
    let pending = records;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const event = {
        Records: pending.map((record) => ({ ...record, eventSourceARN: arn, awsRegion: region })),
      } as DynamoDBStreamEvent;
      let failedAt: string | undefined;
      try {
        failedAt = (await target.invoke(event))?.batchItemFailures?.[0]?.itemIdentifier;
      } catch (error) {
        report(`${target.name}: a batch of ${pending.length} stream records failed`, error);
        failedAt = pending[0]?.dynamodb?.SequenceNumber;
      }
      if (failedAt === undefined) return;
      const from = pending.findIndex((record) => record.dynamodb?.SequenceNumber === failedAt);
      pending = from < 0 ? pending : pending.slice(from);
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined) {
        report(
          `${target.name}: ${pending.length} stream records still failed after ${attempt + 1} attempts; a stage would send them to the dead-letter queue`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  const getRecords = (iterator: string) =>
    streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));

  let rounds = 0;
  async function poll(): Promise<void> {
    rounds++;
    for (const reader of readers) {
      if (stopped) return;
      if (!reader.arn) {
        const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: reader.source.tableName }));
        reader.arn = Table?.LatestStreamArn;
        if (!reader.arn) throw new Error(`table ${reader.source.tableName} has no stream`);
      }
      // New shards are looked for every few rounds: they open seldom, and each look is a request.
      const shards =
        rounds % DESCRIBE_EVERY === 1
          ? ((await streams.send(new DescribeStreamCommand({ StreamArn: reader.arn }))).StreamDescription?.Shards ?? [])
          : [];
      for (const shard of shards) {
        const id = shard.ShardId;
        if (!id || reader.shards.has(id)) continue;
        // The shards there when reading began are read from then on; a shard opened since, whole.
        const { ShardIterator } = await streams.send(
          new GetShardIteratorCommand({
            StreamArn: reader.arn,
            ShardId: id,
            ShardIteratorType: reader.started ? 'TRIM_HORIZON' : 'LATEST',
          }),
        );
        reader.shards.set(id, { iterator: ShardIterator });
      }
      reader.started = true;
      for (const [id, shard] of reader.shards) {
        if (!shard.iterator) continue;
        let page: Awaited<ReturnType<typeof getRecords>>;
        try {
          page = await getRecords(shard.iterator);
        } catch (error) {
          const name = (error as Error).name;
          if (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') throw error;
          // The place was trimmed or expired: taken again after the last record read (or from the oldest kept).
          const { ShardIterator } = await streams.send(
            new GetShardIteratorCommand({
              StreamArn: reader.arn,
              ShardId: id,
              ...(shard.last
                ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.last }
                : { ShardIteratorType: 'TRIM_HORIZON' }),
            }),
          );
          shard.iterator = ShardIterator;
          continue;
        }
        shard.iterator = page.NextShardIterator;
        shard.last = page.Records?.at(-1)?.dynamodb?.SequenceNumber ?? shard.last;
        const taken = (page.Records ?? []).filter((record) => matchesEventPattern(reader.source.pattern, record));
        for (let start = 0; start < taken.length; start += BATCH)
          await deliver(reader.target, reader.arn, taken.slice(start, start + BATCH));
      }
    }
  }

  // A round that fails is tried again at the next: DynamoDB Local may be busy or, at a stop, gone
  // already. Only failures that last are worth a line.
  let failedRounds = 0;
  const pollReporting = () =>
    poll().then(
      () => {
        failedRounds = 0;
      },
      (error: unknown) => {
        if (stopped || ++failedRounds !== LASTING_FAILURE_ROUNDS) return;
        report(`reading the table streams failed ${failedRounds} times in a row; still trying`, error);
      },
    );
  // The first round takes each stream's place (LATEST) before anything waits on `ready`.
  busy = pollReporting();
  const ready = busy;
  const timer = setInterval(() => {
    busy = busy.then(() => (stopped ? undefined : pollReporting()));
  }, pollMs);
  timer.unref();

  return {
    ready,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
      dynamo.destroy();
      streams.destroy();
    },
  };
}
