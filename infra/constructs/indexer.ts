/**
 * The reporting indexer: the reporting table's stream into OpenSearch. Batches report their
 * failed items (ReportBatchItemFailures), a failing batch is bisected, records are retried a
 * bounded number of times, and what still fails lands in an SQS dead-letter queue.
 */
import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { StageConfig } from '../config.ts';
import { ApiFunction } from './api-function.ts';
import type { SpecTable } from './data.ts';
import type { ReportingSearch } from './search.ts';

export const INDEXER_HANDLER = 'functions/indexer/index-reporting-rows.ts';

export class ReportingIndexer extends Construct {
  readonly function: ApiFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: { config: StageConfig; table: SpecTable; search: ReportingSearch }) {
    super(scope, id);
    const { config, table, search } = props;
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `cxm-${config.stage}-reporting-indexer-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.function = new ApiFunction(this, 'Function', {
      entry: INDEXER_HANDLER,
      functionName: `cxm-${config.stage}-reporting-indexer`,
      description: 'Reporting table stream -> OpenSearch (bulk, external versions)',
      timeout: Duration.seconds(60),
      config,
      environment: {
        CXM_OPENSEARCH_ENDPOINT: `https://${search.domain.domainEndpoint}`,
        CXM_OPENSEARCH_INDEX_PREFIX: search.indexPrefix,
      },
    });
    search.grantIndexing(this.function);
    this.function.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 500,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 5,
        maxRecordAge: Duration.hours(6),
        onFailure: new SqsDlq(this.deadLetterQueue),
      }),
    );
  }
}
