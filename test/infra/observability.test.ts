/**
 * Observability in the synthesized stacks: the alarms (metric, threshold, actions to the stage's
 * topic), the topic's encryption and policy, the dashboard, the JSON access log and its 429 and
 * 401 metric filters, tracing, and the search alarms only where a search domain exists. The templates
 * are the run's syntheses of the stages (test/support/stage-templates.ts).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_LOG_FIELDS } from '#infra/cdk/constructs/access-logs';
import { stageConfig } from '#infra/cdk/stage/config';
import { allTableSpecs, physicalTableName } from '#shared/store/table-specs';
import { loadStageTemplates } from '#test/support/stage-templates';

interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
}

interface MetricQuery {
  Id: string;
  Expression?: string;
  MetricStat?: {
    Metric: { MetricName: string; Namespace: string; Dimensions: Array<{ Name: string; Value: unknown }> };
    Stat: string;
    Period: number;
  };
}

const templates = new Map<string, Template>();

beforeAll(async () => {
  for (const { name, template } of await loadStageTemplates(['dev', 'lite', 'prod']))
    templates.set(name, Template.fromJSON(template));
});

function resources(stage: string, type: string): Record<string, CfnResource> {
  return templates.get(stage)!.findResources(type) as Record<string, CfnResource>;
}

function only(stage: string, type: string): [string, CfnResource] {
  const found = Object.entries(resources(stage, type));
  expect(found, type).toHaveLength(1);
  return found[0]!;
}

function alarms(stage: string): Map<string, Record<string, unknown>> {
  return new Map(
    Object.values(resources(stage, 'AWS::CloudWatch::Alarm')).map((alarm) => [
      String(alarm.Properties.AlarmName),
      alarm.Properties,
    ]),
  );
}

function alarm(stage: string, name: string): Record<string, unknown> {
  const found = alarms(stage).get(`cxm-${stage}-${name}`);
  if (!found) throw new Error(`no alarm cxm-${stage}-${name}`);
  return found;
}

/** The metric names an alarm reads, whether a single metric or metric math. */
function metricNames(properties: Record<string, unknown>): string[] {
  if (typeof properties.MetricName === 'string') return [properties.MetricName];
  return (properties.Metrics as MetricQuery[]).flatMap((query) =>
    query.MetricStat ? [query.MetricStat.Metric.MetricName] : [],
  );
}

const config = stageConfig('dev');
const tableAlarmNames = allTableSpecs.map(
  (spec) => `${physicalTableName('dev', spec.id).replace(/^cxm-dev-/, '')}-table-system-errors`,
);

describe('alarms', () => {
  const expected: Array<[name: string, metrics: string[], threshold: number, comparison: string]> = [
    ['api-5xx-rate', ['5XXError', 'Count'], config.alarms.serverErrorRatePercent, 'GreaterThanThreshold'],
    ['api-latency-p99', ['Latency'], config.alarms.latencyP99.toMilliseconds(), 'GreaterThanThreshold'],
    ['api-throttled-429', ['Throttled429'], config.alarms.throttled429Per5Minutes, 'GreaterThanThreshold'],
    [
      'api-unauthenticated-401',
      ['Unauthenticated401'],
      config.alarms.unauthenticated401Per5Minutes,
      'GreaterThanThreshold',
    ],
    [
      'authorizer-throttles',
      ['Throttles'],
      config.alarms.authorizerThrottlesPer5Minutes,
      'GreaterThanOrEqualToThreshold',
    ],
    ...tableAlarmNames.map(
      (name) =>
        [name, ['SystemErrors'], config.alarms.dynamoSystemErrorsPer5Minutes, 'GreaterThanOrEqualToThreshold'] as [
          string,
          string[],
          number,
          string,
        ],
    ),
    ['recording-processor-dlq-depth', ['ApproximateNumberOfMessagesVisible'], 0, 'GreaterThanThreshold'],
    ['webhook-fan-out-dlq-depth', ['ApproximateNumberOfMessagesVisible'], 0, 'GreaterThanThreshold'],
    ['webhook-deliveries-dlq-depth', ['ApproximateNumberOfMessagesVisible'], 0, 'GreaterThanThreshold'],
    ['webhook-sweeper-errors', ['Errors'], 1, 'GreaterThanOrEqualToThreshold'],
    ['indexer-dlq-depth', ['ApproximateNumberOfMessagesVisible'], 0, 'GreaterThanThreshold'],
    ['indexer-iterator-age', ['IteratorAge'], 5 * 60 * 1000, 'GreaterThanThreshold'],
    ['indexer-rows-not-indexed', ['ReportingRowNotIndexed'], 0, 'GreaterThanThreshold'],
    ['search-cluster-red', ['ClusterStatus.red'], 1, 'GreaterThanOrEqualToThreshold'],
  ];

  it('dev has exactly these alarms', () => {
    expect([...alarms('dev').keys()].sort()).toEqual(expected.map(([name]) => `cxm-dev-${name}`).sort());
  });

  it.each(expected)(
    '%s: reads %j, threshold %d (%s), notifies the topic on alarm and recovery',
    (name, metrics, threshold, comparison) => {
      const properties = alarm('dev', name);
      expect(new Set(metricNames(properties))).toEqual(new Set(metrics));
      expect(properties).toMatchObject({
        Threshold: threshold,
        ComparisonOperator: comparison,
        TreatMissingData: 'notBreaching',
      });
      const [topicId] = only('dev', 'AWS::SNS::Topic');
      expect(properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(properties.OKActions).toEqual([{ Ref: topicId }]);
    },
  );

  it('the 5XX rate is 5XXError over Count of the API stage, in percent, per 5 minutes', () => {
    const queries = alarm('dev', 'api-5xx-rate').Metrics as MetricQuery[];
    const expression = queries.find((query) => query.Expression)!;
    const ids = new Map(
      queries.filter((query) => query.MetricStat).map((query) => [query.MetricStat!.Metric.MetricName, query]),
    );
    expect(expression.Expression).toBe(
      `IF(${ids.get('Count')!.Id} > 0, 100 * ${ids.get('5XXError')!.Id} / ${ids.get('Count')!.Id}, 0)`,
    );
    for (const query of ids.values()) {
      expect(query.MetricStat).toMatchObject({ Stat: 'Sum', Period: 300, Metric: { Namespace: 'AWS/ApiGateway' } });
      expect(query.MetricStat!.Metric.Dimensions.map((dimension) => dimension.Name).sort()).toEqual([
        'ApiName',
        'Stage',
      ]);
    }
  });

  it('p99 latency must stay high for three 5-minute periods', () => {
    expect(alarm('dev', 'api-latency-p99')).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    const [query] = alarm('dev', 'api-latency-p99').Metrics as MetricQuery[];
    expect(query!.MetricStat).toMatchObject({ Stat: 'p99', Period: 300 });
  });

  it('DynamoDB SystemErrors: per table, every operation filled with 0 before summing', () => {
    const tableIds = new Map(
      Object.entries(resources('dev', 'AWS::DynamoDB::Table')).map(([id, table]) => [
        table.Properties.TableName as string,
        id,
      ]),
    );
    for (const spec of allTableSpecs) {
      const queries = alarm('dev', `${physicalTableName('dev', spec.id).replace(/^cxm-dev-/, '')}-table-system-errors`)
        .Metrics as MetricQuery[];
      const metrics = queries.filter((query) => query.MetricStat);
      expect(metrics.length).toBeGreaterThan(0);
      expect(queries.length, 'an alarm holds at most 10 metrics').toBeLessThanOrEqual(10);
      for (const query of metrics) {
        const dimensions = new Map(
          query.MetricStat!.Metric.Dimensions.map((dimension) => [dimension.Name, dimension.Value]),
        );
        expect(dimensions.get('TableName')).toEqual({ Ref: tableIds.get(physicalTableName('dev', spec.id)) });
        expect(dimensions.has('Operation')).toBe(true);
      }
      const operations = metrics.map(
        (query) => query.MetricStat!.Metric.Dimensions.find((dimension) => dimension.Name === 'Operation')!.Value,
      );
      expect(operations).toEqual(
        expect.arrayContaining(['GetItem', 'Query', 'PutItem', 'UpdateItem', 'TransactWriteItems', 'GetRecords']),
      );
      expect(queries.find((query) => query.Expression)!.Expression).toBe(
        metrics.map((query) => `FILL(${query.Id}, 0)`).join(' + '),
      );
    }
  });

  it("the authorizer's throttles: any throttled invocation in 5 minutes is a tenant's 503", () => {
    const [functionId] = Object.entries(resources('dev', 'AWS::Lambda::Function')).find(
      ([, fn]) => fn.Properties.FunctionName === 'cxm-dev-authorizer',
    )!;
    expect(config.alarms.authorizerThrottlesPer5Minutes).toBe(1);
    expect(alarm('dev', 'authorizer-throttles')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Statistic: 'Sum',
      Period: 300,
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
    });
  });

  it('indexer and search alarms watch the indexer function, its DLQ and the domain', () => {
    const [functionId] = Object.entries(resources('dev', 'AWS::Lambda::Function')).find(
      ([, fn]) => fn.Properties.FunctionName === 'cxm-dev-reporting-indexer',
    )!;
    expect(alarm('dev', 'indexer-iterator-age')).toMatchObject({
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
    });
    const queueNamed = (name: string) =>
      Object.entries(resources('dev', 'AWS::SQS::Queue')).find(([, queue]) => queue.Properties.QueueName === name)![0];
    const queueId = queueNamed('cxm-dev-reporting-indexer-dlq');
    expect(alarm('dev', 'recording-processor-dlq-depth')).toMatchObject({
      Statistic: 'Maximum',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [queueNamed('cxm-dev-recording-processor-dlq'), 'QueueName'] } },
      ],
    });
    expect(alarm('dev', 'indexer-dlq-depth')).toMatchObject({
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
    });
    const [domainId] = only('dev', 'AWS::OpenSearchService::Domain');
    expect(JSON.stringify(alarm('dev', 'search-cluster-red').Dimensions)).toContain(domainId);
  });

  it('lite (no search domain) has no indexer or search alarms, and keeps all the others', () => {
    const names = [...alarms('lite').keys()];
    expect(names.filter((name) => /indexer|search/.test(name))).toEqual([]);
    expect(names.sort()).toEqual(
      expected
        .filter(([name]) => !/indexer|search/.test(name))
        .map(([name]) => `cxm-lite-${name}`)
        .sort(),
    );
  });

  it('a multi-node domain (prod) also alarms on a lasting yellow; a single node (dev) cannot place replicas, so it does not', () => {
    expect(alarm('prod', 'search-cluster-yellow')).toMatchObject({
      MetricName: 'ClusterStatus.yellow',
      Statistic: 'Minimum',
      EvaluationPeriods: 2,
      Threshold: 1,
    });
    expect(alarms('dev').has('cxm-dev-search-cluster-yellow')).toBe(false);
  });
});

describe('the alarm topic', () => {
  it("is named after the stage and encrypted with a rotated key CloudWatch may use for this stage's alarms", () => {
    const [keyId, key] = only('dev', 'AWS::KMS::Key');
    const [, topic] = only('dev', 'AWS::SNS::Topic');
    expect(topic.Properties).toMatchObject({
      TopicName: 'cxm-dev-alarms',
      KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const statements = (key.Properties.KeyPolicy as { Statement: Array<Record<string, unknown>> }).Statement;
    const cloudWatch = statements.find((statement) =>
      JSON.stringify(statement.Principal).includes('cloudwatch.amazonaws.com'),
    )!;
    expect(cloudWatch.Action).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    expect(JSON.stringify(cloudWatch.Condition)).toContain(':alarm:cxm-dev-*');
  });

  it("refuses publishing without TLS and lets only this stage's alarms publish", () => {
    const [topicId] = only('dev', 'AWS::SNS::Topic');
    const [, policy] = only('dev', 'AWS::SNS::TopicPolicy');
    expect(policy.Properties.Topics).toEqual([{ Ref: topicId }]);
    const statements = (policy.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: '*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const allow = statements.find((statement) => statement.Effect === 'Allow')!;
    expect(allow).toMatchObject({ Action: 'sns:Publish', Principal: { Service: 'cloudwatch.amazonaws.com' } });
    expect(JSON.stringify(allow.Condition)).toContain(':alarm:cxm-dev-*');
  });
});

describe('the dashboard', () => {
  it('is named cxm-<stage> and shows requests, latency, throttles, functions, DynamoDB, indexer and OpenSearch', () => {
    const [, dashboard] = only('dev', 'AWS::CloudWatch::Dashboard');
    expect(dashboard.Properties.DashboardName).toBe('cxm-dev');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const title of [
      'Requests, 4XX, 5XX',
      'Latency',
      'Throttles and refusals',
      'Notes created',
      'Function errors',
      'Function duration p99',
      'DynamoDB system errors',
      'Indexer',
      'OpenSearch cluster',
    ]) {
      expect(body).toContain(`\\"title\\":\\"${title}\\"`);
    }
    // The functions' own counts: namespace CXM, dimensions service and stage.
    expect(body).toContain('\\"CXM\\",\\"NoteCreated\\",\\"service\\",\\"cxm-api\\",\\"stage\\",\\"dev\\"');
  });

  it('lite: no indexer or OpenSearch widgets', () => {
    const [, dashboard] = only('lite', 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    expect(body).not.toContain('OpenSearch');
    expect(body).not.toContain('\\"title\\":\\"Indexer\\"');
  });

  it('the stack outputs its name and URL and the alarm topic', () => {
    const outputs = templates.get('dev')!.toJSON().Outputs as Record<string, { Value: unknown }>;
    const [dashboardId] = only('dev', 'AWS::CloudWatch::Dashboard');
    const [topicId] = only('dev', 'AWS::SNS::Topic');
    expect(outputs.DashboardName!.Value).toEqual({ Ref: dashboardId });
    expect(JSON.stringify(outputs.DashboardUrl!.Value)).toContain('#dashboards/dashboard/');
    expect(outputs.AlarmTopicArn!.Value).toEqual({ Ref: topicId });
  });
});

/** The log group the dev stage's access log goes to: the one resource its destination ARN is built from. */
function accessLogGroupId(): string {
  const [, stage] = only('dev', 'AWS::ApiGateway::Stage');
  const { DestinationArn } = stage.Properties.AccessLogSetting as { DestinationArn: unknown };
  const ids = [...JSON.stringify(DestinationArn).matchAll(/\{"(?:Ref":"|Fn::GetAtt":\[")([^"]+)"/g)]
    .map(([, id]) => id!)
    .filter((id) => !id.startsWith('AWS::'));
  expect(ids, JSON.stringify(DestinationArn)).toHaveLength(1);
  return ids[0]!;
}

describe('access logs', () => {
  it('the stage writes one JSON line per request with the agreed fields, to a log group with the stage retention', () => {
    const [, stage] = only('dev', 'AWS::ApiGateway::Stage');
    const setting = stage.Properties.AccessLogSetting as { Format: string };
    // API Gateway fills `messageString` with a quoted, escaped string; everything else sits in quotes.
    const line = JSON.parse(
      setting.Format.replace('$context.error.messageString', '"Too Many \\"Requests\\""'),
    ) as Record<string, string>;
    expect(Object.keys(line).sort()).toEqual(
      [
        'requestId',
        'stage',
        'ip',
        'keyId',
        'method',
        'resourcePath',
        'path',
        'status',
        'responseLength',
        'requestTime',
        'integrationLatency',
        'responseLatency',
        'errorMessage',
        'errorType',
        'authorizerError',
      ].sort(),
    );
    expect(line).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      keyId: '$context.authorizer.keyId',
      status: '$context.status',
      errorMessage: 'Too Many "Requests"',
    });
    // The caller is its key id; tenants and scopes stay out of the log.
    expect(setting.Format).not.toMatch(/tenants|scopes/);
    expect(Object.keys(line).sort()).toEqual(Object.keys(ACCESS_LOG_FIELDS).sort());
    const logGroup = resources('dev', 'AWS::Logs::LogGroup')[accessLogGroupId()]!;
    expect(logGroup.Properties).toEqual({
      LogGroupName: '/aws/apigateway/cxm-dev/access',
      RetentionInDays: config.logRetention,
    });
  });

  it.each([
    ['429', 'Throttled429', 'api-throttled-429'],
    ['401', 'Unauthenticated401', 'api-unauthenticated-401'],
  ])(
    'a metric filter counts %ss from the access log as CXM %s per stage, which its alarm reads',
    (status, metricName, alarmName) => {
      const logGroupId = accessLogGroupId();
      const filters = Object.values(resources('dev', 'AWS::Logs::MetricFilter')).filter(
        (filter) => (filter.Properties.LogGroupName as { Ref?: string }).Ref === logGroupId,
      );
      expect(filters).toHaveLength(2);
      expect(filters.map((filter) => filter.Properties)).toContainEqual({
        LogGroupName: { Ref: logGroupId },
        FilterPattern: `{ $.status = "${status}" }`,
        MetricTransformations: [
          {
            MetricNamespace: 'CXM',
            MetricName: metricName,
            MetricValue: '1',
            Dimensions: [{ Key: 'stage', Value: '$.stage' }],
          },
        ],
      });
      expect(alarm('dev', alarmName).Metrics).toMatchObject([
        {
          MetricStat: {
            Metric: { Namespace: 'CXM', MetricName: metricName, Dimensions: [{ Name: 'stage', Value: 'dev' }] },
            Stat: 'Sum',
            Period: 300,
          },
        },
      ]);
    },
  );
});

describe("functions' init lines", () => {
  it('a metric filter on each function of ours counts its inits by what its compile cache did', () => {
    const ours = Object.values(resources('dev', 'AWS::Lambda::Function')).filter((fn) =>
      String(fn.Properties.FunctionName).startsWith('cxm-dev-'),
    );
    const filters = Object.values(resources('dev', 'AWS::Logs::MetricFilter')).filter(
      (filter) => filter.Properties.FilterPattern === '{ $.message = "init" }',
    );
    expect(filters).toHaveLength(ours.length);
    for (const fn of ours) {
      const logGroup = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const filter = filters.find(
        (candidate) => (candidate.Properties.LogGroupName as { Ref: string }).Ref === logGroup,
      );
      expect(filter?.Properties.MetricTransformations, String(fn.Properties.FunctionName)).toEqual([
        {
          MetricNamespace: 'CXM',
          MetricName: 'FunctionInit',
          MetricValue: '1',
          Unit: 'Count',
          Dimensions: [
            { Key: 'service', Value: '$.service' },
            { Key: 'stage', Value: '$.stage' },
            { Key: 'compileCache', Value: '$.compileCache.state' },
          ],
        },
      ]);
    }
  });
});

describe('tracing', () => {
  it('every function of ours traces actively, and so does the API stage', () => {
    const ours = Object.values(resources('dev', 'AWS::Lambda::Function')).filter((fn) =>
      String(fn.Properties.FunctionName).startsWith('cxm-dev-'),
    );
    expect(ours.length).toBeGreaterThan(5);
    for (const fn of ours) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    const [, stage] = only('dev', 'AWS::ApiGateway::Stage');
    expect(stage.Properties.TracingEnabled).toBe(true);
  });
});
