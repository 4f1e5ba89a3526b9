/**
 * What an operator watches: alarms to the SNS topic `cxm-<stage>-alarms` and the dashboard
 * `cxm-<stage>`. Thresholds come from the stage config (`alarms`). The search and indexer alarms
 * exist only on stages that have them (reportingBackend opensearch).
 *
 * Every alarm treats missing data as fine: an idle API publishes no request metrics, and an alarm
 * that fires on silence would teach people to ignore the topic.
 */
import { Aws, Duration } from 'aws-cdk-lib';
import {
  Alarm,
  type AlarmProps,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_SWEEP_MINUTES } from '#shared/domain/webhooks/delivery-sweep';
import { APP_METRICS, type AppMetric, METRICS_NAMESPACE } from '#shared/http/metric-names';
import type { StageConfig } from '../stage/config.ts';
import { accessLogGroupOf } from './access-logs.ts';
import type { Api } from './api.ts';
import { type ApiFunction, SERVICE_NAME } from './api-function.ts';
import type { Data, SpecTable } from './data.ts';
import type { ReportingIndexer } from './indexer.ts';
import type { Recordings } from './recordings.ts';
import type { ReportingSearch } from './search.ts';
import type { Webhooks } from './webhooks.ts';

/** Counted from the access logs (the gateway answers 429 without calling a function). */
export const THROTTLED_429_METRIC = 'Throttled429';
/**
 * Counted from the access logs too: every 401, the authorizer's and the gateway's own (a missing
 * header never reaches the authorizer, so its AuthFailure count misses those).
 */
export const UNAUTHENTICATED_401_METRIC = 'Unauthenticated401';

const FIVE_MINUTES = Duration.minutes(5);

/**
 * The operations the stores, the CLI and the stream readers perform. SystemErrors exists only per
 * operation; an alarm's metric math holds at most 10 metrics, so not every operation DynamoDB has.
 */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.QUERY,
  Operation.SCAN,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.GET_RECORDS,
];

export interface ObservabilityProps {
  config: StageConfig;
  api: Api;
  data: Data;
  search?: ReportingSearch;
  indexer?: ReportingIndexer;
  recordings?: Recordings;
  webhooks?: Webhooks;
}

export class Observability extends Construct {
  readonly alarmTopic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];
  private readonly stage: string;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const { config, api, data, search, indexer, recordings, webhooks } = props;
    const { alarms: thresholds } = config;
    this.stage = config.stage;
    this.alarmTopic = this.createAlarmTopic(config);

    const apiStage = api.restApi.deploymentStage;
    const requests = apiStage.metricCount({ statistic: 'Sum', period: FIVE_MINUTES });
    const serverErrors = apiStage.metricServerError({ statistic: 'Sum', period: FIVE_MINUTES });
    const serverErrorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { errors: serverErrors, requests },
      label: '5XX % of requests',
      period: FIVE_MINUTES,
    });
    this.alarm('api-5xx-rate', {
      alarmDescription: `More than ${thresholds.serverErrorRatePercent}% of requests answered 5XX over 5 minutes`,
      metric: serverErrorRate,
      threshold: thresholds.serverErrorRatePercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });

    const latencyP99 = apiStage.metricLatency({ statistic: 'p99', period: FIVE_MINUTES, label: 'Latency p99' });
    this.alarm('api-latency-p99', {
      alarmDescription: `API p99 latency above ${thresholds.latencyP99.toMilliseconds()} ms for 15 minutes`,
      metric: latencyP99,
      threshold: thresholds.latencyP99.toMilliseconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      // One slow window of cold starts is not an incident; three in a row are.
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
    });

    // The gateway answers 429 itself: only its access log knows.
    const throttled429 = this.accessLogCount(
      api,
      'Throttled429Filter',
      '429',
      THROTTLED_429_METRIC,
      '429 (usage plan)',
    );
    this.alarm('api-throttled-429', {
      alarmDescription: `More than ${thresholds.throttled429Per5Minutes} requests refused with 429 in 5 minutes`,
      metric: throttled429,
      threshold: thresholds.throttled429Per5Minutes,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });

    // A client stuck on a revoked key, or a flood of made-up ones (those with a wrong tag cost no
    // read, but each is still an authorizer invocation).
    const unauthenticated401 = this.accessLogCount(
      api,
      'Unauthenticated401Filter',
      '401',
      UNAUTHENTICATED_401_METRIC,
      '401 (keys refused)',
    );
    this.alarm('api-unauthenticated-401', {
      alarmDescription: `More than ${thresholds.unauthenticated401Per5Minutes} requests refused with 401 in 5 minutes: a client on a revoked or expired key, or a flood of made-up keys`,
      metric: unauthenticated401,
      threshold: thresholds.unauthenticated401Per5Minutes,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });

    // At its reserved concurrency the authorizer is throttled, and every tenant whose cached
    // answer expires meanwhile gets 503.
    this.alarm('authorizer-throttles', {
      alarmDescription: `The authorizer was throttled ${thresholds.authorizerThrottlesPer5Minutes} time(s) or more in 5 minutes: requests needing a fresh answer got 503`,
      metric: api.authorizerFunction.metricThrottles({ statistic: 'Sum', period: FIVE_MINUTES }),
      threshold: thresholds.authorizerThrottlesPer5Minutes,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    const tables = Object.values(data.tables);
    const systemErrors = new Map(tables.map((table) => [table, tableSystemErrors(table)]));
    for (const [table, metric] of systemErrors) {
      this.alarm(`${table.spec.id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}-table-system-errors`, {
        alarmDescription: `DynamoDB SystemErrors on ${table.spec.id} (5 minutes)`,
        metric,
        threshold: thresholds.dynamoSystemErrorsPer5Minutes,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    if (recordings) {
      this.deadLetterAlarm(
        'recording-processor-dlq-depth',
        recordings.deadLetterQueue,
        'VOC recording events the processor gave up on are waiting in its dead-letter queue (their jobs fail by their window)',
      );
    }

    if (webhooks) {
      this.deadLetterAlarm(
        'webhook-fan-out-dlq-depth',
        webhooks.fanOutDeadLetters,
        "Table stream records the webhooks' fan-out gave up on are waiting in its dead-letter queue: their events were not delivered",
      );
      this.deadLetterAlarm(
        'webhook-deliveries-dlq-depth',
        webhooks.deliveryDeadLetters,
        'Webhook delivery tasks the delivery function could not settle five times are waiting in their dead-letter queue',
      );
      this.alarm('webhook-sweeper-errors', {
        alarmDescription:
          'The webhook sweeper met errors in three runs in a row: lost delivery tasks and long waits are not being queued (see its logs)',
        metric: webhooks.sweeper.metricErrors({ statistic: 'Sum', period: Duration.minutes(WEBHOOK_SWEEP_MINUTES) }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
      });
    }

    if (indexer) {
      this.deadLetterAlarm(
        'indexer-dlq-depth',
        indexer.deadLetterQueue,
        'Reporting rows the indexer gave up on are waiting in its dead-letter queue',
      );
      this.alarm('indexer-iterator-age', {
        alarmDescription: `The reporting indexer is more than ${thresholds.indexerIteratorAge.toMinutes()} minutes behind its stream`,
        metric: indexer.function.metric('IteratorAge', { statistic: 'Maximum', period: FIVE_MINUTES }),
        threshold: thresholds.indexerIteratorAge.toMilliseconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
      });
      this.alarm('indexer-rows-not-indexed', {
        alarmDescription:
          'The reporting indexer gave up on rows it can never index (its log says which and why): the lists lack them until they are written again',
        metric: this.appMetric(APP_METRICS.reportingRowNotIndexed, 'Rows not indexed'),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    if (search) {
      this.alarm('search-cluster-red', {
        alarmDescription: 'The reporting search domain is red: a primary shard is unassigned',
        metric: search.domain.metricClusterStatusRed({ statistic: 'Maximum', period: Duration.minutes(1) }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
      // A single node can never place replicas, so yellow is its normal state: only several nodes
      // staying yellow (a lost node, a full disk) means something.
      if (config.search.dataNodes > 1) {
        this.alarm('search-cluster-yellow', {
          alarmDescription: 'The reporting search domain has been yellow (replicas unassigned) for 10 minutes',
          metric: search.domain.metricClusterStatusYellow({ statistic: 'Minimum', period: FIVE_MINUTES }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 2,
        });
      }
    }

    // Labelled by route id: the dashboard belongs to one stage already.
    const functions: [string, ApiFunction][] = [
      ['authorizer', api.authorizerFunction],
      ...api.routeFunctions,
      ...(indexer ? [['reporting-indexer', indexer.function] as [string, ApiFunction]] : []),
      ...(recordings ? [['recording-processor', recordings.processor] as [string, ApiFunction]] : []),
      ...(webhooks
        ? [
            ['webhook-fan-out', webhooks.fanOut] as [string, ApiFunction],
            ['webhook-delivery', webhooks.delivery] as [string, ApiFunction],
            ['webhook-sweeper', webhooks.sweeper] as [string, ApiFunction],
          ]
        : []),
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `cxm-${config.stage}`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    this.dashboard.addWidgets(
      graph('Requests, 4XX, 5XX', [
        requests,
        apiStage.metricClientError({ statistic: 'Sum', period: FIVE_MINUTES }),
        serverErrors,
      ]),
      graph('Latency', [
        apiStage.metricLatency({ statistic: 'p50', period: FIVE_MINUTES, label: 'Latency p50' }),
        latencyP99,
        apiStage.metricIntegrationLatency({ statistic: 'p99', period: FIVE_MINUTES, label: 'Integration latency p99' }),
      ]),
      graph('Throttles and refusals', [
        throttled429,
        unauthenticated401,
        this.appMetric(APP_METRICS.serviceUnavailable, '503 (store throttled or unavailable)'),
        this.appMetric(APP_METRICS.authFailure, 'Auth failures'),
      ]),
      graph('Notes created', [this.appMetric(APP_METRICS.noteCreated, 'NoteCreated')]),
    );
    this.dashboard.addWidgets(
      graph(
        'Function errors',
        functions.map(([label, fn]) => fn.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES, label })),
      ),
      graph(
        'Function duration p99',
        functions.map(([label, fn]) => fn.metricDuration({ statistic: 'p99', period: FIVE_MINUTES, label })),
      ),
      graph(
        'Function throttles',
        functions.map(([label, fn]) => fn.metricThrottles({ statistic: 'Sum', period: FIVE_MINUTES, label })),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'DynamoDB system errors',
        [...systemErrors].map(([table, metric]) => metric.with({ label: table.spec.id })),
      ),
      graph(
        'DynamoDB consumed read units',
        tables.map((table) => table.metricConsumedReadCapacityUnits({ period: FIVE_MINUTES, label: table.spec.id })),
      ),
      graph(
        'DynamoDB consumed write units',
        tables.map((table) => table.metricConsumedWriteCapacityUnits({ period: FIVE_MINUTES, label: table.spec.id })),
      ),
    );
    if (indexer && search) {
      this.dashboard.addWidgets(
        graph('Indexer', [
          indexer.function.metric('IteratorAge', {
            statistic: 'Maximum',
            period: FIVE_MINUTES,
            label: 'Iterator age (ms)',
          }),
          indexer.function.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES, label: 'Errors' }),
          indexer.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            statistic: 'Maximum',
            period: FIVE_MINUTES,
            label: 'DLQ depth',
          }),
        ]),
        graph('OpenSearch cluster', [
          search.domain.metricClusterStatusRed({ statistic: 'Maximum', period: Duration.minutes(1), label: 'Red' }),
          search.domain.metricClusterStatusYellow({
            statistic: 'Maximum',
            period: Duration.minutes(1),
            label: 'Yellow',
          }),
          search.domain.metricCPUUtilization({ statistic: 'Maximum', period: FIVE_MINUTES, label: 'CPU % (max)' }),
        ]),
        graph('OpenSearch storage and search', [
          search.domain.metricFreeStorageSpace({
            statistic: 'Minimum',
            period: FIVE_MINUTES,
            label: 'Free storage (MB)',
          }),
          search.domain.metricSearchLatency({ statistic: 'p99', period: FIVE_MINUTES, label: 'Search latency p99' }),
        ]),
      );
    }
  }

  /**
   * The topic, encrypted with a key of our own: CloudWatch must be allowed to use the key to publish
   * to an encrypted topic, and the AWS managed key (alias/aws/sns) has a policy nobody can extend,
   * so alarms would fire into nothing. Key and topic admit CloudWatch for this stage's alarms only.
   */
  private createAlarmTopic(config: StageConfig): Topic {
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const ourAlarmsOnly = {
      StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
      ArnLike: {
        'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:cxm-${config.stage}-*`,
      },
    };
    const key = new Key(this, 'AlarmTopicKey', {
      description: `Encrypts the SNS topic cxm-${config.stage}-alarms`,
      enableKeyRotation: true,
      removalPolicy: config.removalPolicy,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: ourAlarmsOnly,
      }),
    );
    const topic = new Topic(this, 'AlarmTopic', {
      topicName: `cxm-${config.stage}-alarms`,
      displayName: `CXM ${config.stage} alarms`,
      masterKey: key,
      // A topic policy denying every request that is not over TLS.
      enforceSSL: true,
    });
    topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: ourAlarmsOnly,
      }),
    );
    return topic;
  }

  /** An alarm named `cxm-<stage>-<name>`, notifying the topic when it fires and when it clears. */
  private alarm(name: string, props: Omit<AlarmProps, 'alarmName' | 'treatMissingData'>): Alarm {
    const alarm = new Alarm(this, pascalCase(name), {
      ...props,
      alarmName: `cxm-${this.stage}-${name}`,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const action = new SnsAction(this.alarmTopic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.alarms.push(alarm);
    return alarm;
  }

  /**
   * The stage's responses of one status, counted from its access log by a metric filter. `stage` is
   * a dimension because the namespace is shared by every stage of the account.
   */
  private accessLogCount(api: Api, filterId: string, status: string, metricName: string, label: string): Metric {
    new MetricFilter(this, filterId, {
      logGroup: accessLogGroupOf(api),
      filterPattern: FilterPattern.stringValue('$.status', '=', status),
      metricNamespace: METRICS_NAMESPACE,
      metricName,
      metricValue: '1',
      dimensions: { stage: '$.stage' },
    });
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { stage: this.stage },
      statistic: 'Sum',
      period: FIVE_MINUTES,
      label,
    });
  }

  /** Any message in a dead-letter queue: something was given up on and wants a look. */
  private deadLetterAlarm(name: string, queue: IQueue, alarmDescription: string): Alarm {
    return this.alarm(name, {
      alarmDescription,
      metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
  }

  /** A count the functions publish (shared/http/metrics.ts): dimensions service and stage. */
  private appMetric(name: AppMetric, label: string): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: { service: SERVICE_NAME, stage: this.stage },
      statistic: 'Sum',
      period: FIVE_MINUTES,
      label,
    });
  }
}

/**
 * SystemErrors of one table, summed over its operations. FILL: an operation without errors
 * publishes nothing, and a sum with a missing term would be missing too, hiding the others.
 */
function tableSystemErrors(table: SpecTable): MathExpression {
  const usingMetrics = Object.fromEntries(
    // Ids unique across tables: the dashboard graphs every table's expression together.
    TABLE_OPERATIONS.map((operation) => [
      `${table.spec.id}${operation}`,
      table.metric('SystemErrors', {
        dimensionsMap: { TableName: table.tableName, Operation: operation },
        statistic: 'Sum',
        period: FIVE_MINUTES,
      }),
    ]),
  );
  return new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics,
    label: `${table.spec.id} system errors`,
    period: FIVE_MINUTES,
  });
}

function graph(title: string, left: IMetric[]): GraphWidget {
  return new GraphWidget({ title, left, width: 8, height: 6 });
}

function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
