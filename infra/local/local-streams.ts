/**
 * Lambda's DynamoDB stream event source mappings, locally: DynamoDB Local keeps each table's stream
 * as DynamoDB does, and this reads it as the mapping would, from the records written once reading
 * began (LATEST), a shard at a time, keeping to each mapping's filter, and hands the function
 * batches of its mapping's size (10 unless it says) in order. A batch the function fails on (or
 * reports a record of) is given again from the first failed record, as Lambda retries from the
 * failed sequence number, as often as its mapping says (twice unless it says, waiting a second,
 * then two, up to five); one still failing is reported, where a stage would send it to the
 * mapping's dead-letter queue, and reading goes on.
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
  /** Records per invocation at most, as its mapping's BatchSize (default 10). */
  batchSize?: number;
  /**
   * How a failing batch is retried, as its mapping's MaximumRetryAttempts and
   * MaximumRecordAgeInSeconds say: default twice. `Infinity` retries until the oldest record of the
   * batch is `maxRecordAgeMs` old.
   */
  retry?: { attempts: number; maxRecordAgeMs?: number };
  invoke(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse | undefined>;
}

export interface StreamReaders {
  /** Resolves once each stream's place is taken: a record written after it is read. */
  ready: Promise<void>;
  /**
   * Resolves once rounds begun after the call have read every stream to its end: each record
   * written before the call has been handed over (or given up on, as a stage would drop it).
   */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

const DEFAULT_BATCH = 10;
/** Failed rounds in a row after which reading is reported as failing. */
const LASTING_FAILURE_ROUNDS = 5;
/** Rounds between two looks for new shards. */
const DESCRIBE_EVERY = 8;
const DEFAULT_RETRY: NonNullable<StreamTarget['retry']> = { attempts: 2 };
/** The wait before each retry of a batch: doubling from a second, at most five. */
const retryDelayMs = (attempt: number) => Math.min(1000 * 2 ** attempt, 5000);

/**
 * A record as Lambda hands it to a function: JSON, so its creation time is epoch seconds (the SDK
 * reads it as a Date), with the stream's ARN and region.
 */
function lambdaRecord(record: _Record, arn: string, region: string) {
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    ...record,
    ...(record.dynamodb && {
      dynamodb: {
        ...record.dynamodb,
        ...(created instanceof Date && { ApproximateCreationDateTime: Math.floor(created.getTime() / 1000) }),
      },
    }),
    eventSourceARN: arn,
    awsRegion: region,
  };
}

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
    const { attempts, maxRecordAgeMs = Number.POSITIVE_INFINITY } = target.retry ?? DEFAULT_RETRY;
    for (let attempt = 0; pending.length > 0 && !stopped; attempt++) {
      const event = { Records: pending.map((record) => lambdaRecord(record, arn, region)) } as DynamoDBStreamEvent;
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
      const oldest = pending[0]?.dynamodb?.ApproximateCreationDateTime?.getTime() ?? Date.now();
      if (attempt >= attempts || Date.now() - oldest >= maxRecordAgeMs) {
        report(
          `${target.name}: ${pending.length} stream records still failed after ${attempt + 1} attempts; a stage would send them to the dead-letter queue`,
        );
        return;
      }
      if (attempt === 0 && attempts > DEFAULT_RETRY.attempts)
        report(`${target.name}: a batch of ${pending.length} stream records failed; retrying until it passes`);
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
    }
  }

  const getRecords = (iterator: string) =>
    streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));

  let rounds = 0;
  /** One round over every stream; `describe` looks for new shards whatever the round. Answers the records read. */
  async function poll(describe = false): Promise<number> {
    let read = 0;
    rounds++;
    for (const reader of readers) {
      if (stopped) return read;
      if (!reader.arn) {
        const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: reader.source.tableName }));
        reader.arn = Table?.LatestStreamArn;
        if (!reader.arn) throw new Error(`table ${reader.source.tableName} has no stream`);
      }
      // New shards are looked for every few rounds: they open seldom, and each look is a request.
      const shards =
        describe || rounds % DESCRIBE_EVERY === 1
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
        read += page.Records?.length ?? 0;
        const taken = (page.Records ?? []).filter((record) => matchesEventPattern(reader.source.pattern, record));
        const batch = reader.target.batchSize ?? DEFAULT_BATCH;
        for (let start = 0; start < taken.length; start += batch)
          await deliver(reader.target, reader.arn, taken.slice(start, start + batch));
      }
    }
    return read;
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
  // The first round takes each stream's place (LATEST) before anything waits on `ready`: tried
  // until it succeeds, since a record written after `ready` must be read.
  const ready = (async () => {
    for (;;) {
      try {
        await poll(true);
        return;
      } catch (error) {
        if (stopped || ++failedRounds >= LASTING_FAILURE_ROUNDS) throw error;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    }
  })();
  busy = ready.catch(() => undefined);
  const timer = setInterval(() => {
    busy = busy.then(() => (stopped ? undefined : pollReporting()));
  }, pollMs);
  timer.unref();

  return {
    ready,
    async caughtUp() {
      // Rounds begun after the call, until two in a row read nothing: like DynamoDB's, a shard
      // read from a new iterator may answer an empty page with records behind it. Each round looks
      // for new shards: a stream's first shard may open with its first record.
      for (let empty = 0; empty < 2 && !stopped; ) {
        const round = busy.then(() => (stopped ? 0 : poll(true)));
        busy = round.then(
          () => undefined,
          () => undefined,
        );
        try {
          empty = (await round) === 0 ? empty + 1 : 0;
        } catch {
          // DynamoDB Local busy: the next round is as good.
        }
      }
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
      dynamo.destroy();
      streams.destroy();
    },
  };
}
