/**
 * The reporting search path in the synthesized stacks: the OpenSearch domain and the indexer on
 * stages that read OpenSearch (dev, prod), and neither on a stage configured for DynamoDB (lite).
 * Those are the run's syntheses of the stages (test/support/stage-templates.ts); the longest stage
 * name is this file's own. Bundling is skipped (test/infra/bundles.test.ts covers the bundles).
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { CxmStack } from '#infra/cdk/stack';
import { stageConfig } from '#infra/cdk/stage/config';
import { opensearchEngineVersion } from '#infra/opensearch-engine';
import { searchLogPolicyName } from '#infra/search-log-policy-name';
import { CDK_JSON_CONTEXT, WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';
import { loadStageTemplates } from '#test/support/stage-templates';

/** As long as a stage name may be (20): the domain name must still fit. */
const LONGEST_STAGE = 'feature-reports-eu1';
const templates = new Map<string, Template>();

beforeAll(async () => {
  for (const { name, template } of await loadStageTemplates(['dev', 'prod', 'lite']))
    templates.set(name, Template.fromJSON(template));
  const app = new App({
    ...WITHOUT_BUILTIN_VALIDATION,
    context: { ...CDK_JSON_CONTEXT, stage: LONGEST_STAGE, [BUNDLING_STACKS]: [] },
  });
  templates.set(LONGEST_STAGE, Template.fromStack(new CxmStack(app, { config: stageConfig(LONGEST_STAGE) })));
});

const functionNamed = (template: Template, name: string) =>
  Object.values(template.findResources('AWS::Lambda::Function')).find((fn) => fn.Properties.FunctionName === name)!;

describe('the OpenSearch domain', () => {
  it('dev: a small single-node domain of the engine the tests run, encrypted, HTTPS only, slow logs on', () => {
    // The local engine's POM pins the patch; a domain names major.minor.
    expect(opensearchEngineVersion()).toMatch(/^2\.19\.\d+$/);
    templates.get('dev')!.hasResourceProperties('AWS::OpenSearchService::Domain', {
      EngineVersion: 'OpenSearch_2.19',
      ClusterConfig: Match.objectLike({
        InstanceType: 't3.small.search',
        InstanceCount: 1,
        ZoneAwarenessEnabled: false,
      }),
      EncryptionAtRestOptions: { Enabled: true },
      NodeToNodeEncryptionOptions: { Enabled: true },
      DomainEndpointOptions: Match.objectLike({ EnforceHTTPS: true, TLSSecurityPolicy: 'Policy-Min-TLS-1-2-2019-07' }),
      LogPublishingOptions: Match.objectLike({
        SEARCH_SLOW_LOGS: Match.objectLike({ Enabled: true }),
        INDEX_SLOW_LOGS: Match.objectLike({ Enabled: true }),
      }),
    });
  });

  it('a 20-character stage still synthesizes its domain (CloudFormation names it)', () => {
    const template = templates.get(LONGEST_STAGE)!;
    template.resourceCountIs('AWS::OpenSearchService::Domain', 1);
    const [domain] = Object.values(template.findResources('AWS::OpenSearchService::Domain'));
    expect(domain!.Properties.DomainName).toBeUndefined();
  });

  it("adds one Logs resource policy, for the domain's log delivery, named as cxm preflight looks for it", () => {
    for (const stage of ['dev', 'prod', LONGEST_STAGE]) {
      const policies = Object.values(templates.get(stage)!.findResources('Custom::CloudwatchLogResourcePolicy'));
      expect(policies, stage).toHaveLength(1);
      templates.get(stage)!.resourceCountIs('AWS::Logs::ResourcePolicy', 0);
      // The custom resource's SDK call (PutResourcePolicy and its name) is a JSON string in the template.
      const call = JSON.stringify(policies[0]!.Properties.Create);
      expect(call).toContain('putResourcePolicy');
      expect(call).toContain(searchLogPolicyName(stage));
    }
    templates.get('lite')!.resourceCountIs('Custom::CloudwatchLogResourcePolicy', 0);
    templates.get('lite')!.resourceCountIs('AWS::Logs::ResourcePolicy', 0);
  });

  it('prod: zone-aware across three zones', () => {
    templates.get('prod')!.hasResourceProperties('AWS::OpenSearchService::Domain', {
      ClusterConfig: Match.objectLike({
        InstanceCount: 3,
        ZoneAwarenessEnabled: true,
        ZoneAwarenessConfig: { AvailabilityZoneCount: 3 },
      }),
    });
  });

  it('a stage reading DynamoDB has no domain, no indexer, and its lists read the reporting table', () => {
    const lite = templates.get('lite')!;
    lite.resourceCountIs('AWS::OpenSearchService::Domain', 0);
    // No mapping reads the reporting table's stream (the webhooks' fan-out reads others').
    const reportingTable = Object.entries(lite.findResources('AWS::DynamoDB::Table')).find(
      ([, table]) => table.Properties.TableName === 'cxm-lite-reporting',
    )![0];
    const mappings = Object.values(lite.findResources('AWS::Lambda::EventSourceMapping'));
    expect(
      mappings.filter((mapping) => JSON.stringify(mapping.Properties.EventSourceArn).includes(reportingTable)),
    ).toEqual([]);
    const list = functionNamed(lite, 'cxm-lite-listAssistantConversations');
    expect(list.Properties.Environment.Variables).toMatchObject({ CXM_REPORTING_BACKEND: 'dynamodb' });
    expect(list.Properties.Environment.Variables.CXM_TABLE_REPORTING).toBeDefined();
  });
});

describe('the lists on OpenSearch stages', () => {
  it('read OpenSearch (endpoint and index prefix in their environment) and not the reporting table', () => {
    for (const id of ['listAssistantConversations', 'listVocConversations']) {
      const variables = functionNamed(templates.get('dev')!, `cxm-dev-${id}`).Properties.Environment.Variables;
      expect(variables).toMatchObject({
        CXM_REPORTING_BACKEND: 'opensearch',
        CXM_OPENSEARCH_INDEX_PREFIX: 'cxm-dev-reporting',
      });
      expect(variables.CXM_OPENSEARCH_ENDPOINT).toBeDefined();
      expect(variables.CXM_TABLE_REPORTING).toBeUndefined();
    }
  });
});

describe('the indexer', () => {
  it('reads the reporting stream with item failures, bisection, retries until a record is 6 hours old and a DLQ', () => {
    const dev = templates.get('dev')!;
    const [queueId] = Object.keys(dev.findResources('AWS::SQS::Queue'));
    dev.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      // Absent: Lambda's default, every retry until the record's age passes MaximumRecordAgeInSeconds.
      MaximumRetryAttempts: Match.absent(),
      MaximumRecordAgeInSeconds: 6 * 3600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    dev.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'cxm-dev-reporting-indexer-dlq',
      SqsManagedSseEnabled: true,
    });
    const indexer = functionNamed(dev, 'cxm-dev-reporting-indexer');
    expect(indexer.Properties.Environment.Variables).toMatchObject({
      CXM_OPENSEARCH_INDEX_PREFIX: 'cxm-dev-reporting',
    });
  });

  it("reads a stream that shows old images too (a row's previous year index), and gives the stage's shard counts for new year indexes", () => {
    for (const [stage, shards] of [
      ['dev', { primaries: '1', replicas: '0' }],
      ['prod', { primaries: '1', replicas: '1' }],
    ] as const) {
      const template = templates.get(stage)!;
      const [reporting] = Object.values(template.findResources('AWS::DynamoDB::Table')).filter(
        (table) => table.Properties.TableName === `cxm-${stage}-reporting`,
      );
      expect(reporting!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
      expect(functionNamed(template, `cxm-${stage}-reporting-indexer`).Properties.Environment.Variables).toMatchObject({
        CXM_OPENSEARCH_PRIMARY_SHARDS: shards.primaries,
        CXM_OPENSEARCH_REPLICAS: shards.replicas,
      });
    }
  });

  it('refuses, at synth, replicas that the domain has no node for', () => {
    const config = stageConfig('dev');
    const app = new App({ ...WITHOUT_BUILTIN_VALIDATION, context: { [BUNDLING_STACKS]: [] } });
    expect(
      () =>
        new CxmStack(app, {
          config: { ...config, search: { ...config.search, indexShards: { primaries: 1, replicas: 1 } } },
        }),
    ).toThrow(/replicas < dataNodes/);
  });

  it('may write the reporting indexes; the list functions may only read them', () => {
    const dev = templates.get('dev')!;
    const esActions = (roleNamePart: string) =>
      Object.values(dev.findResources('AWS::IAM::Policy'))
        .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleNamePart))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>)
        .flatMap((statement) => [statement.Action].flat())
        .filter((action) => action.startsWith('es:'));
    // What the indexer sends, nothing else: POST _bulk and _index_template/<its own>, PUT <its alias>/_mapping.
    expect(esActions('Indexer')).toEqual(['es:ESHttpPost', 'es:ESHttpPut']);
    const listActions = esActions('listAssistantConversations');
    // A search is a POST with a body: nothing else of the domain, not even GET.
    expect(listActions).toEqual(['es:ESHttpPost']);
    expect(listActions).not.toContain('es:ESHttpPut');
    const listResources = JSON.stringify(
      Object.values(dev.findResources('AWS::IAM::Policy'))
        .filter((policy) => JSON.stringify(policy.Properties.Roles).includes('listAssistantConversations'))
        .flatMap((policy) =>
          (policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown; Resource: unknown }>).filter((st) =>
            JSON.stringify(st.Action).includes('es:'),
          ),
        ),
    );
    expect(listResources).toContain('cxm-dev-reporting-*/_search');
    expect(listActions).not.toContain('es:ESHttpDelete');
    // The indexer's own two index templates, by exact name: no other template of the domain.
    const indexerResources = JSON.stringify(
      Object.values(dev.findResources('AWS::IAM::Policy'))
        .filter((policy) => JSON.stringify(policy.Properties.Roles).includes('Indexer'))
        .map((policy) => policy.Properties.PolicyDocument),
    );
    expect(indexerResources).toContain('/_index_template/cxm-dev-reporting-assistant"');
    expect(indexerResources).toContain('/_index_template/cxm-dev-reporting-voc"');
    expect(indexerResources).not.toContain('_index_template/*');
    // Its mappings reach the year indexes through the two read aliases only.
    expect(indexerResources).toContain('/cxm-dev-reporting-assistant-read/_mapping"');
    expect(indexerResources).toContain('/cxm-dev-reporting-voc-read/_mapping"');
  });
});
