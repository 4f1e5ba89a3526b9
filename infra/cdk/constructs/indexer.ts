/**
 * The reporting indexer: the reporting table's stream into OpenSearch. Batches report their
 * failed items (ReportBatchItemFailures), a failing batch is bisected and retried until its records
 * are six hours old (an outage of the domain loses nothing shorter), and what still fails lands in
 * an SQS dead-letter queue.
 */

import { Duration } from 'aws-cdk-lib';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { functionName } from '#infra/stage-names';
import { REPORTING_INDEXER } from '#shared/reporting/reporting-indexer';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import type { StageConfig } from '../stage/config.ts';
import { ApiFunction } from './api-function.ts';
import type { SpecTable } from './data.ts';
import type { ReportingSearch } from './search.ts';

export class ReportingIndexer extends Construct {
  readonly function: ApiFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: { config: StageConfig; table: SpecTable; search: ReportingSearch }) {
    super(scope, id);
    const { config, table, search } = props;
    const { indexShards, dataNodes } = config.search;
    // OpenSearch never puts a replica on its primary's node: more replicas than other nodes would
    // stay unassigned and keep the domain yellow. Refused at synth, not found after a deploy.
    const { primaries, replicas } = indexShards;
    if (
      !Number.isInteger(primaries) ||
      primaries < 1 ||
      !Number.isInteger(replicas) ||
      replicas < 0 ||
      replicas >= dataNodes
    ) {
      throw new Error(
        `stage ${config.stage}: search.indexShards needs primaries >= 1 and 0 <= replicas < dataNodes (${dataNodes})`,
      );
    }
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `cxm-${config.stage}-reporting-indexer-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.function = new ApiFunction(this, 'Function', {
      entry: REPORTING_INDEXER.handler,
      functionName: functionName(config.stage, REPORTING_INDEXER.id),
      description: 'Reporting table stream -> OpenSearch (bulk, external versions)',
      timeout: Duration.seconds(60),
      config,
      environment: {
        [FUNCTION_ENV.opensearchEndpoint]: `https://${search.domain.domainEndpoint}`,
        [FUNCTION_ENV.opensearchIndexPrefix]: search.indexPrefix,
        // Put into the index templates: the shards of each year index created from now on.
        [FUNCTION_ENV.opensearchPrimaryShards]: String(primaries),
        [FUNCTION_ENV.opensearchReplicas]: String(replicas),
      },
    });
    search.grantIndexing(this.function);
    this.function.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: REPORTING_INDEXER.batchSize,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        // No retryAttempts: a failing batch is retried until maxRecordAge (shared/reporting/reporting-indexer.ts).
        maxRecordAge: Duration.hours(REPORTING_INDEXER.maxRecordAgeHours),
        onFailure: new SqsDlq(this.deadLetterQueue),
      }),
    );
  }
}
