/**
 * Lambda's DynamoDB stream event source mappings, locally: DynamoDB Local keeps each table's stream
 * as DynamoDB does, and this reads it as the mapping would, from the records written once reading
 * began (LATEST), every shard of every mapping side by side, keeping to each mapping's filter, and
 * hands the function batches of its mapping's size (10 unless it says) in order: with a
 * ParallelizationFactor, that many batches of a shard at once, the records of one partition key
 * always in one lane, in order. A batch the function fails on (or
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
  /** Batches of one shard handed over at once, as its mapping's ParallelizationFactor (default 1). */
  parallelization?: number;
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

/**
 * The lane of a record among `lanes`, by its partition key, as Lambda splits a shard for a
 * ParallelizationFactor: a key's records always go to one lane, in the stream's order.
 */
function laneOf(record: _Record, hashKey: string | undefined, lanes: number): number {
  if (lanes <= 1 || hashKey === undefined) return 0;
  const key = JSON.stringify(record.dynamodb?.Keys?.[hashKey] ?? null);
  let hash = 0;
  for (let index = 0; index < key.length; index++) hash = (hash * 31 + key.charCodeAt(index)) | 0;
  return Math.abs(hash) % lanes;
}

/** Records of a shard waiting for their lane, and the lane's work on them while it runs. */
interface Lane {
  waiting: _Record[];
  running?: Promise<void>;
}

/**
 * The sum of `counts` once every one has settled, so no read of a round outlives it; the first
 * failure, if any, after.
 */
async function totalOfAll(counts: readonly Promise<number>[]): Promise<number> {
  const settled = await Promise.allSettled(counts);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.reduce((total, outcome) => total + (outcome.status === 'fulfilled' ? outcome.value : 0), 0);
}

interface ShardReader {
  iterator: string | undefined;
  /** The last record read, to take the place again when the iterator is refused. */
  last?: string;
  /** Its lanes, each handing its records over batch by batch while the shard is read on. */
  lanes: Lane[];
}

/**
 * Records read but not yet handed over, per shard, past which the shard is not read on: a lane
 * that falls behind holds back its own shard's reading, never the other shards' or lanes'.
 */
const MAX_WAITING_PER_SHARD = 1000;

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
      /** The table's partition key, which keeps a key's records in one lane. */
      hashKey: undefined as string | undefined,
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

  /** Hands the lane's waiting records to `reader`'s function in batches, until none wait. */
  function runLane(reader: (typeof readers)[number], arn: string, lane: Lane): void {
    if (lane.running) return;
    const batch = reader.target.batchSize ?? DEFAULT_BATCH;
    lane.running = (async () => {
      while (lane.waiting.length > 0 && !stopped) await deliver(reader.target, arn, lane.waiting.splice(0, batch));
    })().finally(() => {
      lane.running = undefined;
    });
  }

  /** Puts `reader`'s records of one page in their lanes, each lane running on its own. */
  function handOver(reader: (typeof readers)[number], arn: string, shard: ShardReader, records: readonly _Record[]) {
    for (const record of records) {
      if (!matchesEventPattern(reader.source.pattern, record)) continue;
      shard.lanes[laneOf(record, reader.hashKey, shard.lanes.length)]!.waiting.push(record);
    }
    for (const lane of shard.lanes) runLane(reader, arn, lane);
  }

  const runningLanes = () =>
    readers.flatMap((reader) =>
      [...reader.shards.values()].flatMap((shard) => shard.lanes.flatMap((lane) => lane.running ?? [])),
    );

  /** Resolves once no lane of any shard has records left to hand over. */
  async function drained(): Promise<void> {
    for (;;) {
      const running = runningLanes();
      if (running.length === 0 || stopped) return;
      await Promise.allSettled(running);
    }
  }

  /** Reads one shard's next page and hands it over; answers the records read. */
  async function readShard(reader: (typeof readers)[number], arn: string, id: string, shard: ShardReader) {
    const waiting = shard.lanes.reduce((total, lane) => total + lane.waiting.length, 0);
    if (!shard.iterator || waiting >= MAX_WAITING_PER_SHARD) return 0;
    let page: Awaited<ReturnType<typeof getRecords>>;
    try {
      page = await getRecords(shard.iterator);
    } catch (error) {
      const name = (error as Error).name;
      if (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') throw error;
      // The place was trimmed or expired: taken again after the last record read (or from the oldest kept).
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: arn,
          ShardId: id,
          ...(shard.last
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.last }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      );
      shard.iterator = ShardIterator;
      return 0;
    }
    shard.iterator = page.NextShardIterator;
    shard.last = page.Records?.at(-1)?.dynamodb?.SequenceNumber ?? shard.last;
    handOver(reader, arn, shard, page.Records ?? []);
    return page.Records?.length ?? 0;
  }

  /** One round over one stream: new shards taken when `describe`, then every shard side by side. */
  async function pollStream(reader: (typeof readers)[number], describe: boolean): Promise<number> {
    if (!reader.arn) {
      const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: reader.source.tableName }));
      reader.arn = Table?.LatestStreamArn;
      reader.hashKey = Table?.KeySchema?.find((key) => key.KeyType === 'HASH')?.AttributeName;
      if (!reader.arn) throw new Error(`table ${reader.source.tableName} has no stream`);
    }
    const arn = reader.arn;
    const shards = describe
      ? ((await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription?.Shards ?? [])
      : [];
    for (const shard of shards) {
      const id = shard.ShardId;
      if (!id || reader.shards.has(id)) continue;
      // The shards there when reading began are read from then on; a shard opened since, whole.
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: arn,
          ShardId: id,
          ShardIteratorType: reader.started ? 'TRIM_HORIZON' : 'LATEST',
        }),
      );
      const lanes = Array.from({ length: Math.max(1, reader.target.parallelization ?? 1) }, () => ({ waiting: [] }));
      reader.shards.set(id, { iterator: ShardIterator, lanes });
    }
    reader.started = true;
    return totalOfAll([...reader.shards].map(([id, shard]) => readShard(reader, arn, id, shard)));
  }

  /** One round over every stream; `describe` looks for new shards whatever the round. Answers the records read. */
  async function poll(describe = false): Promise<number> {
    rounds++;
    if (stopped) return 0;
    // New shards are looked for every few rounds: they open seldom, and each look is a request.
    const looking = describe || rounds % DESCRIBE_EVERY === 1;
    return totalOfAll(readers.map((reader) => pollStream(reader, looking)));
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
      // The lanes are drained between rounds, outside the rounds' chain, so reading goes on
      // meanwhile and no round after the first skips a shard for the records waiting in it.
      for (let empty = 0; empty < 2 && !stopped; ) {
        const round = busy.then(() => (stopped ? 0 : poll(true)));
        busy = round.then(
          () => undefined,
          () => undefined,
        );
        try {
          const read = await round;
          await drained();
          empty = read === 0 ? empty + 1 : 0;
        } catch {
          // DynamoDB Local busy: the next round is as good.
        }
      }
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
      // Each lane ends with the batch it is handing over.
      await Promise.allSettled(runningLanes());
      dynamo.destroy();
      streams.destroy();
    },
  };
}
