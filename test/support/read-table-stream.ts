/**
 * Every record a table's stream holds in DynamoDB Local, read as a stream consumer (a Pipe, the
 * indexer) would: DescribeTable for the stream's ARN, DescribeStream for its shards, then each shard
 * from TRIM_HORIZON until it has nothing more. The tables are shared by every file of the run, so
 * callers pick their own records out (by tenant, by conversation).
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { LocalDynamoConnection } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';

export type StreamRecord = _Record;

/** GetRecords' own maximum: fewer round trips on a stream the whole run writes to. */
const PAGE = 1000;

async function streamArn({ endpoint, credentials }: LocalDynamoConnection, table: string): Promise<string> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials });
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (!Table?.LatestStreamArn) throw new Error(`table ${table} has no stream`);
    return Table.LatestStreamArn;
  } finally {
    client.destroy();
  }
}

async function allShards(streams: DynamoDBStreamsClient, arn: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let start: string | undefined;
  do {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: arn, ExclusiveStartShardId: start }),
    );
    shards.push(...(StreamDescription?.Shards ?? []));
    start = StreamDescription?.LastEvaluatedShardId;
  } while (start);
  return shards;
}

async function shardRecords(streams: DynamoDBStreamsClient, arn: string, shardId: string): Promise<StreamRecord[]> {
  const records: StreamRecord[] = [];
  let { ShardIterator: iterator } = await streams.send(
    new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
  );
  while (iterator) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: PAGE }));
    const got = page.Records ?? [];
    records.push(...got);
    // A closed shard ends without a next iterator; an open one always has one, so an empty page
    // says it has been read up to now.
    if (got.length === 0) break;
    iterator = page.NextShardIterator;
  }
  return records;
}

/** All records of `table`'s stream, shard by shard in the order DescribeStream lists them. */
export async function readTableStream(store: LocalDynamoConnection, table: string): Promise<StreamRecord[]> {
  const arn = await streamArn(store, table);
  const streams = new DynamoDBStreamsClient({
    endpoint: store.endpoint,
    region: LOCAL_REGION,
    credentials: store.credentials,
  });
  try {
    const records: StreamRecord[] = [];
    for (const shard of await allShards(streams, arn)) {
      if (shard.ShardId) records.push(...(await shardRecords(streams, arn, shard.ShardId)));
    }
    return records;
  } finally {
    streams.destroy();
  }
}
