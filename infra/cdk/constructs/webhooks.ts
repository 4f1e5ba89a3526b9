/**
 * Tenant webhooks on a stage (shared/webhook-functions.ts): the fan-out reads the streams of the
 * conversations, VOC jobs and documents tables (filtered to the records that are events), keeps the
 * deliveries and queues a task for each; the delivery function takes the tasks from the queue,
 * makes each attempt, and queues the next one, delayed, when it failed and the queue can carry the
 * wait; the sweeper, on a schedule, queues the tasks of longer waits near their time and again
 * those of tasks lost. Failures are bounded and kept: a stream record the fan-out keeps failing
 * goes to its dead-letter queue after its retries, a task the delivery function keeps failing (a
 * store outage, not a receiver's error, which the schedule handles) to the queue's own dead-letter
 * queue; both have an alarm (observability.ts). A sweeper run that fails is followed by the next.
 */

import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { functionName } from '#infra/stage-names';
import type { TableAccess } from '#shared/api/route-spec';
import { WEBHOOK_SWEEP_MINUTES } from '#shared/domain/webhooks/delivery-sweep';
import { RETRY_SCHEDULE_MS } from '#shared/domain/webhooks/retry-schedule';
import { ATTEMPT_CLAIM_SECONDS } from '#shared/domain/webhooks/webhook-delivery';
import type { WebhookTargetRules } from '#shared/domain/webhooks/webhook-target';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import type { TableId } from '#shared/store/table-specs';
import {
  deliveryQueueName,
  WEBHOOK_DELIVERY,
  WEBHOOK_FAN_OUT,
  WEBHOOK_STREAM_SOURCES,
  WEBHOOK_SWEEP,
  webhookSweepRuleName,
} from '#shared/webhook-functions';
import type { StageConfig } from '../stage/config.ts';
import { ApiFunction } from './api-function.ts';
import type { SpecTable } from './data.ts';

/**
 * An attempt posts for at most 15 s; a batch's attempts run side by side, with their store calls.
 * An attempt's claim on its delivery lasts as long, so it holds for as long as the run may live.
 */
const DELIVERY_TIMEOUT = Duration.seconds(ATTEMPT_CLAIM_SECONDS);
/** Lambda's advice for a queue it reads: a visibility timeout of six times the function's. */
const DELIVERY_VISIBILITY = Duration.seconds(DELIVERY_TIMEOUT.toSeconds() * 6);

export class Webhooks extends Construct {
  readonly fanOut: ApiFunction;
  readonly delivery: ApiFunction;
  readonly sweeper: ApiFunction;
  readonly queue: Queue;
  /** Stream records the fan-out gave up on. */
  readonly fanOutDeadLetters: Queue;
  /** Delivery tasks the delivery function could not settle five times. */
  readonly deliveryDeadLetters: Queue;

  constructor(scope: Construct, id: string, props: { config: StageConfig; tables: Record<TableId, SpecTable> }) {
    super(scope, id);
    const { config, tables } = props;
    const { stage } = config;
    const deadLetters = (name: string, construct: string) =>
      new Queue(this, construct, {
        queueName: `cxm-${stage}-${name}`,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
    this.fanOutDeadLetters = deadLetters('webhook-fan-out-dlq', 'FanOutDeadLetters');
    this.deliveryDeadLetters = deadLetters('webhook-deliveries-dlq', 'DeliveryDeadLetters');
    this.queue = new Queue(this, 'Deliveries', {
      queueName: deliveryQueueName(stage),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: DELIVERY_VISIBILITY,
      // Longer than a hop of the schedule's longest wait (15 minutes) and a day of retries.
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deliveryDeadLetters, maxReceiveCount: 5 },
    });
    const environment = { [FUNCTION_ENV.webhookQueueUrl]: this.queue.queueUrl };

    this.fanOut = new ApiFunction(this, 'FanOut', {
      entry: WEBHOOK_FAN_OUT.handler,
      functionName: functionName(stage, WEBHOOK_FAN_OUT.id),
      description: 'Tenant webhooks: a committed note, an ended job, a changed document -> deliveries and their tasks',
      timeout: Duration.seconds(60),
      config,
      environment,
    });
    for (const [tableId, access] of Object.entries(WEBHOOK_FAN_OUT.tables) as [TableId, TableAccess][])
      this.fanOut.bindTable(tables[tableId], access);
    for (const source of WEBHOOK_STREAM_SOURCES) {
      const table = tables[source.table];
      // The function names the table of each record from its stream's ARN.
      this.fanOut.addEnvironment(table.spec.envVar, table.tableName);
      this.fanOut.addEventSource(
        new DynamoEventSource(table, {
          // A new fan-out announces what happens from now on, not a day of the stream's past.
          startingPosition: StartingPosition.LATEST,
          ...WEBHOOK_FAN_OUT.mapping,
          filters: [FilterCriteria.filter(source.pattern)],
          bisectBatchOnError: true,
          reportBatchItemFailures: true,
          retryAttempts: 10,
          maxRecordAge: Duration.hours(24),
          onFailure: new SqsDlq(this.fanOutDeadLetters),
        }),
      );
    }
    this.queue.grantSendMessages(this.fanOut);

    this.delivery = new ApiFunction(this, 'Delivery', {
      entry: WEBHOOK_DELIVERY.handler,
      functionName: functionName(stage, WEBHOOK_DELIVERY.id),
      description: 'Tenant webhooks: one signed attempt per queued task, the next one queued when it failed',
      timeout: DELIVERY_TIMEOUT,
      config,
      environment: {
        ...environment,
        [FUNCTION_ENV.webhookTargets]: 'stage' satisfies WebhookTargetRules,
        // The schedule, stated in the function's configuration (a local stage may shorten it).
        [FUNCTION_ENV.webhookRetrySchedule]: RETRY_SCHEDULE_MS.join(','),
      },
    });
    for (const [tableId, access] of Object.entries(WEBHOOK_DELIVERY.tables) as [TableId, TableAccess][])
      this.delivery.bindTable(tables[tableId], access);
    this.delivery.addEventSource(
      new SqsEventSource(this.queue, { ...WEBHOOK_DELIVERY.mapping, reportBatchItemFailures: true }),
    );
    // The next attempt of a failed delivery, and the next hop of a task early for its attempt.
    this.queue.grantSendMessages(this.delivery);

    this.sweeper = new ApiFunction(this, 'Sweeper', {
      entry: WEBHOOK_SWEEP.handler,
      functionName: functionName(stage, WEBHOOK_SWEEP.id),
      description:
        'Tenant webhooks: queue the tasks of pending deliveries due in the sweep index (lost, or long waits)',
      // A run reads a bounded number of pages (delivery-sweep.ts): seconds, well within this.
      timeout: Duration.seconds(60),
      // A failed run is followed by the next a minute later; a retry would only run beside it.
      retryAttempts: 0,
      config,
      environment,
    });
    for (const [tableId, access] of Object.entries(WEBHOOK_SWEEP.tables) as [TableId, TableAccess][])
      this.sweeper.bindTable(tables[tableId], access);
    this.queue.grantSendMessages(this.sweeper);
    new Rule(this, 'DeliverySweep', {
      ruleName: webhookSweepRuleName(stage),
      description:
        'Queue the tasks of pending webhook deliveries whose task was lost or whose wait outlasts a queue delay',
      schedule: Schedule.rate(Duration.minutes(WEBHOOK_SWEEP_MINUTES)),
      // As above: the next run, not EventBridge's retries, takes over from one that was not invoked.
      targets: [new LambdaTarget(this.sweeper, { retryAttempts: 0 })],
    });
  }
}
