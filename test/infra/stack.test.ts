/**
 * The synthesized `cxm-dev` template against the route table and table specs it is built from,
 * with a stage that opts out of every protection before the authorizer (`lite-unguarded`) and one
 * with every optional setting flipped (`lite-flipped`) beside it: the run's syntheses of those
 * variants (test/support/stage-templates.ts), read by every assertion.
 */

import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_DOCUMENT_OPERATION } from '#infra/cdk/constructs/api-docs';
import { SERVICE_NAME } from '#infra/cdk/constructs/api-function';
import { keyHeaderPatterns } from '#infra/cdk/constructs/edge-protection';
import { errorBodyTemplate, gatewayResponseHeaders } from '#infra/cdk/constructs/gateway-responses';
import { CxmStack } from '#infra/cdk/stack';
import { concurrencyReservations, stageReservedConcurrency } from '#infra/cdk/stage/concurrency-reservations';
import { type StageConfig, stageConfig } from '#infra/cdk/stage/config';
import { FUNCTION_TIMEOUT_SECONDS, type RouteSpec, type TableAccess } from '#shared/api/route-spec';
import { routes } from '#shared/api/route-table';
import { generateKey } from '#shared/auth/key-format';
import { WEBHOOK_SWEEP_MINUTES } from '#shared/domain/webhooks/delivery-sweep';
import { gatewayResponses } from '#shared/http/gateway-responses';
import { OPENAPI_DOCUMENT_PATH } from '#shared/openapi/build-openapi-document';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { DYNAMO_INDEX_TABLES } from '#shared/store/function-stores';
import { allTableSpecs, physicalTableName, type TableId, tableSpecs } from '#shared/store/table-specs';
import {
  deliveryQueueName,
  WEBHOOK_DELIVERY,
  WEBHOOK_FAN_OUT,
  WEBHOOK_SEALING_KEY,
  WEBHOOK_STREAM_SOURCES,
  WEBHOOK_SWEEP,
  webhookSweepRuleName,
} from '#shared/webhook-functions';
import { WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';
import { type CfnTemplate, loadStageTemplates, stageTemplate, stageVariant } from '#test/support/stage-templates';

interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DeletionPolicy?: string;
}

const config = stageVariant('dev').config;
const routeSpecs: readonly RouteSpec[] = routes;
/** What no function needs: reading a whole table or deleting from it (but a DELETE route, its own items). */
const NEVER_GRANTED = ['dynamodb:Scan', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:*'];
const neverGranted = (route: RouteSpec) =>
  NEVER_GRANTED.filter((action) => !(route.method === 'DELETE' && action === 'dynamodb:DeleteItem'));

let template: Template;
let originsTemplate: Template;
/** A stage that lists MCP origins and opts out of the web ACL (every rule of it), of reserved concurrency and of untagged keys. */
const withOrigins: StageConfig = stageVariant('lite-unguarded').config;

beforeAll(async () => {
  await loadStageTemplates(['dev', 'lite-unguarded', 'lite-flipped']);
  template = Template.fromJSON(stageTemplate('dev').template);
  originsTemplate = Template.fromJSON(stageTemplate('lite-unguarded').template);
});

function resourcesOf(type: string): Record<string, CfnResource> {
  return template.findResources(type) as Record<string, CfnResource>;
}

function resource(logicalId: string): CfnResource {
  const found = template.toJSON().Resources[logicalId] as CfnResource | undefined;
  if (!found) throw new Error(`no resource ${logicalId}`);
  return found;
}

function logicalIdWhere(type: string, property: string, value: unknown): string {
  const ids = Object.entries(resourcesOf(type))
    .filter(([, r]) => r.Properties[property] === value)
    .map(([id]) => id);
  expect(ids, `${type} with ${property}=${String(value)}`).toHaveLength(1);
  return ids[0]!;
}

/** Logical ids referenced as `Fn::GetAtt [id, ...]` or `Ref id` anywhere inside a value. */
function referencedIds(value: unknown): Set<string> {
  const ids = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key === 'Ref' && typeof child === 'string') ids.add(child);
        else if (key === 'Fn::GetAtt' && Array.isArray(child) && typeof child[0] === 'string') ids.add(child[0]);
        else walk(child);
      }
    }
  };
  walk(value);
  return ids;
}

const tableLogicalId = (id: TableId) =>
  logicalIdWhere('AWS::DynamoDB::Table', 'TableName', physicalTableName(config.stage, id));
const functionLogicalId = (name: string) =>
  logicalIdWhere('AWS::Lambda::Function', 'FunctionName', `cxm-${config.stage}-${name}`);

interface DynamoStatement {
  Action: string | string[];
  Resource: unknown;
}

/** The DynamoDB statements of every policy attached to the function's role. */
function dynamoStatements(functionId: string): DynamoStatement[] {
  const roleId = [...referencedIds(resource(functionId).Properties.Role)][0]!;
  return Object.values(resourcesOf('AWS::IAM::Policy'))
    .filter((policy) => referencedIds(policy.Properties.Roles).has(roleId))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: DynamoStatement[] }).Statement)
    .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('dynamodb:')));
}

/** Table id -> the DynamoDB actions the function may perform on it. */
function tableGrants(functionId: string): Map<TableId, string[]> {
  const byLogicalId = new Map(allTableSpecs.map((spec) => [tableLogicalId(spec.id), spec.id]));
  const grants = new Map<TableId, string[]>();
  for (const statement of dynamoStatements(functionId)) {
    expect(statement.Resource, 'no DynamoDB grant on *').not.toBe('*');
    for (const id of referencedIds(statement.Resource)) {
      const tableId = byLogicalId.get(id);
      if (!tableId) throw new Error(`DynamoDB grant on a resource that is not a table: ${id}`);
      grants.set(tableId, [...(grants.get(tableId) ?? []), ...[statement.Action].flat()]);
    }
  }
  return grants;
}

/** `/api/v1/...` of an API Gateway resource, from its PathPart and parent chain. */
function resourcePath(resourceId: unknown): string {
  const [id] = referencedIds(resourceId);
  const node = resourcesOf('AWS::ApiGateway::Resource')[id!];
  if (!node) return ''; // the RestApi's root resource
  return `${resourcePath(node.Properties.ParentId)}/${String(node.Properties.PathPart)}`;
}

describe('tables', () => {
  it.each(allTableSpecs)('$id: on demand, PITR, AWS-managed encryption, stage name, dev removal', (spec) => {
    const table = resource(tableLogicalId(spec.id));
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: false,
      KeySchema: [
        { AttributeName: spec.partitionKey.name, KeyType: 'HASH' },
        ...(spec.sortKey ? [{ AttributeName: spec.sortKey.name, KeyType: 'RANGE' }] : []),
      ],
    });
    expect(table.DeletionPolicy).toBe('Delete');
    const stream = table.Properties.StreamSpecification;
    expect(stream).toEqual(spec.stream ? { StreamViewType: spec.stream } : undefined);
  });

  it('a stage that serves the lists from DynamoDB gives the reporting table no stream: nothing would read it', () => {
    expect(withOrigins.reportingBackend).toBe('dynamodb');
    const [reporting] = Object.values(originsTemplate.findResources('AWS::DynamoDB::Table')).filter(
      (table) => table.Properties.TableName === physicalTableName(withOrigins.stage, 'reporting'),
    );
    expect(reporting!.Properties.StreamSpecification).toBeUndefined();
  });

  it('conversations has a NEW_IMAGE stream and keys a GSI on keyId', () => {
    expect(resource(tableLogicalId('conversations')).Properties.StreamSpecification).toEqual({
      StreamViewType: 'NEW_IMAGE',
    });
    expect(resource(tableLogicalId('keys')).Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'byKeyId',
        KeySchema: [{ AttributeName: 'keyId', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
  });

  it('outputs every physical table name, the API URL, the search domain URL, the event bus, the dashboard and the alarm topic', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    for (const spec of allTableSpecs) {
      expect([...referencedIds(Object.values(outputs).map((o) => o.Value))]).toContain(tableLogicalId(spec.id));
    }
    expect(outputs.ApiUrl).toBeDefined();
    // Besides: the NoteCreated bus (note-events.test.ts), the dashboard and alarm topic (observability.test.ts), the recordings bucket.
    expect(Object.keys(outputs)).toHaveLength(allTableSpecs.length + 7);
    for (const name of ['EventBusName', 'DashboardName', 'DashboardUrl', 'AlarmTopicArn', 'RecordingsBucketName'])
      expect(outputs[name], name).toBeDefined();
    // Where `cxm import` and `cxm seed --stage` see their rows become searchable: the domain's URL.
    expect(JSON.stringify(outputs.SearchEndpoint?.Value)).toMatch(
      /^\{"Fn::Join":\["",\["https:\/\/",\{"Fn::GetAtt":\["Search\w+","DomainEndpoint"\]\}\]\]\}$/,
    );
    // A stage on DynamoDB has no domain, and no such output.
    expect(Object.keys(originsTemplate.toJSON().Outputs ?? {})).not.toContain('SearchEndpoint');
  });
});

describe('authorizer', () => {
  it('is a REQUEST authorizer cached per Authorization header alone (its answer, usage key included, is the same on every path), backed by the authorizer function', () => {
    const [authorizer, ...others] = Object.values(resourcesOf('AWS::ApiGateway::Authorizer'));
    expect(others).toHaveLength(0);
    expect(authorizer!.Properties).toMatchObject({
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 60,
    });
    expect(referencedIds(authorizer!.Properties.AuthorizerUri)).toContain(functionLogicalId('authorizer'));
  });

  it('only reads a key by its hash', () => {
    const grants = tableGrants(functionLogicalId('authorizer'));
    expect([...grants.keys()]).toEqual(['keys']);
    expect(grants.get('keys')).toEqual(['dynamodb:GetItem']);
  });
});

describe('gateway responses', () => {
  const responses = () =>
    new Map(
      Object.values(resourcesOf('AWS::ApiGateway::GatewayResponse')).map((r) => [
        r.Properties.ResponseType,
        r.Properties,
      ]),
    );

  it('one per shared spec', () => {
    expect([...responses().keys()].sort()).toEqual(Object.keys(gatewayResponses).sort());
  });

  it.each(Object.entries(gatewayResponses))('%s: status, {code, message} body, quoted headers', (type, spec) => {
    const response = responses().get(type)!;
    expect(response.StatusCode).toBe(spec.status === undefined ? undefined : String(spec.status));
    const body = (response.ResponseTemplates as Record<string, string>)['application/json']!;
    expect(JSON.parse(body)).toEqual({ code: spec.code, message: spec.message });
    const headers = response.ResponseParameters as Record<string, string>;
    expect(headers).toMatchObject({
      'gatewayresponse.header.X-Request-Id': 'context.requestId',
      'gatewayresponse.header.Content-Type': "'application/json; charset=utf-8'",
      'gatewayresponse.header.Cache-Control': "'no-store'",
      'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
    });
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      expect(headers[`gatewayresponse.header.${name}`]).toBe(`'${value}'`);
    }
  });
});

describe('gateway response rendering', () => {
  it('escapes JSON and keeps Velocity syntax out of the body template', () => {
    const spec = { code: 'BadRequest', message: `It's "$input.body" #set ##comment \\ done.` } as const;
    const body = errorBodyTemplate(spec);
    expect(body).not.toMatch(/[$#]/);
    expect(JSON.parse(body)).toEqual(spec);
  });

  it('refuses a static header value that would break its quoting', () => {
    expect(() => gatewayResponseHeaders({ code: 'BadRequest', message: 'm', headers: { 'X-Note': "it's" } })).toThrow(
      /single quote/,
    );
  });
});

describe('functions', () => {
  const functionNames = ['authorizer', ...routeSpecs.map((route) => route.id)];
  /** The tables a route's function is bound to on this stage: a list reading OpenSearch has no reporting table. */
  const boundTables = (route: RouteSpec) =>
    Object.entries(route.tables).filter(
      ([tableId]) =>
        !(
          route.reportingIndex &&
          config.reportingBackend === 'opensearch' &&
          DYNAMO_INDEX_TABLES.includes(tableId as TableId)
        ),
    ) as [TableId, TableAccess][];

  it("one per route plus the authorizer, the reporting indexer, the recording processor, the three webhook functions, the webhook sealing key's resource and the OpenAPI document (and CDK's own helpers)", () => {
    const ours = Object.values(resourcesOf('AWS::Lambda::Function'))
      .map((fn) => fn.Properties.FunctionName)
      .filter((name): name is string => typeof name === 'string');
    expect(ours.sort()).toEqual(
      [
        ...functionNames,
        'reporting-indexer',
        'processRecording',
        WEBHOOK_FAN_OUT.id,
        WEBHOOK_DELIVERY.id,
        WEBHOOK_SWEEP.id,
        WEBHOOK_SEALING_KEY.id,
        OPENAPI_DOCUMENT_OPERATION,
      ]
        .map((name) => `cxm-${config.stage}-${name}`)
        .sort(),
    );
  });

  it("every function of ours takes Lambda's runtime updates with a deploy (FunctionUpdate), none on Lambda's schedule", () => {
    const ours = Object.values(resourcesOf('AWS::Lambda::Function')).filter(
      (fn) => typeof fn.Properties.FunctionName === 'string',
    );
    expect(ours.length).toBeGreaterThan(functionNames.length);
    for (const fn of ours)
      expect(fn.Properties.RuntimeManagementConfig, String(fn.Properties.FunctionName)).toEqual({
        UpdateRuntimeOn: 'FunctionUpdate',
      });
  });

  it.each(functionNames)('%s: Node 24 on x86_64, timeout, tracing, own log group with stage retention', (name) => {
    const fn = resource(functionLogicalId(name));
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['x86_64'],
      Timeout: FUNCTION_TIMEOUT_SECONDS,
      MemorySize: config.memorySize,
      TracingConfig: { Mode: 'Active' },
      Handler: 'index.handler',
    });
    const [logGroupId] = referencedIds(fn.Properties.LoggingConfig);
    expect(resource(logGroupId!).Properties).toEqual({
      LogGroupName: `/aws/lambda/cxm-${config.stage}-${name}`,
      RetentionInDays: config.logRetention,
    });
  });

  it.each(routeSpecs.map((route) => [route.id, route] as const))('%s: env names exactly its tables', (id, route) => {
    const variables = (resource(functionLogicalId(id)).Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(variables).toMatchObject({ POWERTOOLS_SERVICE_NAME: SERVICE_NAME, POWERTOOLS_LOG_LEVEL: config.logLevel });
    const tableVariables = Object.keys(variables).filter((name) => name.startsWith('CXM_TABLE_'));
    const expected = boundTables(route).map(([tableId]) => tableSpecs[tableId].envVar);
    expect(tableVariables.sort()).toEqual(expected.sort());
    for (const [tableId] of boundTables(route)) {
      expect(referencedIds(variables[tableSpecs[tableId].envVar])).toEqual(new Set([tableLogicalId(tableId)]));
    }
  });

  it.each(routeSpecs.map((route) => [route.id, route] as const))(
    '%s: grants only its tables, exactly the operations the route table names',
    (id, route) => {
      const grants = tableGrants(functionLogicalId(id));
      expect([...grants.keys()].sort()).toEqual(
        boundTables(route)
          .map(([tableId]) => tableId)
          .sort(),
      );
      for (const [tableId, access] of boundTables(route)) {
        const expected = [
          ...(access.operations ?? []),
          ...((access.indexQueries ?? []).length > 0 ? ['Query'] : []),
        ].map((operation) => `dynamodb:${operation}`);
        expect(new Set(grants.get(tableId)), tableId).toEqual(new Set(expected));
        for (const never of neverGranted(route)) expect(grants.get(tableId)).not.toContain(never);
      }
    },
  );

  it('the note function can touch only the conversations table and its idempotency records', () => {
    expect([...tableGrants(functionLogicalId('addInternalNote')).keys()].sort()).toEqual([
      'conversations',
      'idempotency',
    ]);
  });

  it('only the writes that take an Idempotency-Key reach the idempotency table, and they get the TTL setting', () => {
    const reaching = routeSpecs
      .filter((route) => tableGrants(functionLogicalId(route.id)).has('idempotency'))
      .map((route) => route.id);
    expect(reaching.sort()).toEqual([
      'addInternalNote',
      'createRecording',
      'createWebhookEndpoint',
      'mergeCurrentDocument',
      'replaceCurrentDocument',
      'restoreDocumentVersion',
      'rotateWebhookSecret',
    ]);
    expect(
      routeSpecs
        .filter((route) => route.idempotencyKey)
        .map((route) => route.id)
        .sort(),
    ).toEqual(reaching.sort());
    for (const id of reaching) {
      const variables = (
        resource(functionLogicalId(id)).Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables[FUNCTION_ENV.idempotencyTtlHours]).toBe(String(config.idempotencyTtlHours));
    }
  });

  it("the functions that read or write a document's history get the stage's retention, and only they", () => {
    const versioned = routeSpecs.filter((route) => tableGrants(functionLogicalId(route.id)).has('documentVersions'));
    expect(versioned.map((route) => route.id).sort()).toEqual([
      'getDocumentVersion',
      'listDocumentVersions',
      'mergeCurrentDocument',
      'replaceCurrentDocument',
      'restoreDocumentVersion',
    ]);
    for (const route of routeSpecs) {
      const variables = (
        resource(functionLogicalId(route.id)).Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      const expected = versioned.includes(route)
        ? [String(config.documentVersions.keep), String(config.documentVersions.maxAgeDays)]
        : [undefined, undefined];
      expect(
        [variables[FUNCTION_ENV.documentVersionsKeep], variables[FUNCTION_ENV.documentVersionsMaxAgeDays]],
        route.id,
      ).toEqual(expected);
    }
  });

  it('the idempotency table expires records by its TTL attribute', () => {
    expect(resource(tableLogicalId('idempotency')).Properties.TimeToLiveSpecification).toEqual({
      AttributeName: tableSpecs.idempotency.timeToLiveAttribute,
      Enabled: true,
    });
  });
});

describe('methods', () => {
  it('one per route and declared further method, and GET /openapi.json; no others', () => {
    const declared = routeSpecs.reduce((sum, route) => sum + 1 + (route.otherMethods?.length ?? 0), 0);
    template.resourceCountIs('AWS::ApiGateway::Method', declared + 1);
  });

  it('GET /openapi.json needs neither a key nor a usage-plan key, and reaches its own function', () => {
    const properties = resource(
      logicalIdWhere('AWS::ApiGateway::Method', 'OperationName', OPENAPI_DOCUMENT_OPERATION),
    ).Properties;
    expect(properties).toMatchObject({ HttpMethod: 'GET', AuthorizationType: 'NONE', ApiKeyRequired: false });
    expect(properties.AuthorizerId).toBeUndefined();
    expect(resourcePath(properties.ResourceId)).toBe(OPENAPI_DOCUMENT_PATH);
    expect(referencedIds(properties.Integration)).toContain(functionLogicalId(OPENAPI_DOCUMENT_OPERATION));
    expect(tableGrants(functionLogicalId(OPENAPI_DOCUMENT_OPERATION)).size).toBe(0);
  });

  it('MCP GET and DELETE reach the MCP function itself (which answers 405), behind the authorizer', () => {
    for (const [method, operation] of [
      ['GET', 'mcpBotsGet'],
      ['DELETE', 'mcpBotsDelete'],
    ] as const) {
      const properties = resource(logicalIdWhere('AWS::ApiGateway::Method', 'OperationName', operation)).Properties;
      expect(properties).toMatchObject({ HttpMethod: method, AuthorizationType: 'CUSTOM' });
      expect(resourcePath(properties.ResourceId)).toBe('/api/v1/mcp/tenants/{tenantId}/bots');
      expect(referencedIds(properties.Integration)).toContain(functionLogicalId('mcpBots'));
    }
  });

  it('the provisioning readers get read-only access to documents, the writers read-write', () => {
    for (const id of ['listDocuments', 'getCurrentDocument', 'mcpBots'])
      expect([...tableGrants(functionLogicalId(id)).keys()]).toEqual(['documents']);
    for (const id of ['replaceCurrentDocument', 'mergeCurrentDocument'])
      expect(tableGrants(functionLogicalId(id)).get('documents')).toContain('dynamodb:UpdateItem');
    expect(tableGrants(functionLogicalId('getCurrentDocument')).get('documents')).not.toContain('dynamodb:UpdateItem');
  });

  it.each(routeSpecs.map((route) => [route.id, route] as const))(
    '%s: path, method, authorizer, its own function',
    (id, route) => {
      const method = resource(logicalIdWhere('AWS::ApiGateway::Method', 'OperationName', id)).Properties;
      const [authorizerId] = Object.keys(resourcesOf('AWS::ApiGateway::Authorizer'));
      expect(method).toMatchObject({
        HttpMethod: route.method,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        // Rate limits per tenant: refused without the usage-plan key the authorizer names.
        ApiKeyRequired: true,
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      expect(resourcePath(method.ResourceId)).toBe(route.path);
      expect(referencedIds(method.Integration)).toContain(functionLogicalId(id));
    },
  );

  /** The functions whose policies allow GetSecretValue on the secret `secretId`, by name. */
  function readersOf(secretId: string): string[] {
    const readers = Object.values(resourcesOf('AWS::IAM::Policy'))
      .filter((policy) =>
        (
          policy.Properties.PolicyDocument as { Statement: Array<{ Action: unknown; Resource: unknown }> }
        ).Statement.some(
          (statement) =>
            JSON.stringify(statement.Action).includes('secretsmanager:GetSecretValue') &&
            JSON.stringify(statement.Resource) === JSON.stringify({ Ref: secretId }),
        ),
      )
      .flatMap((policy) => (policy.Properties.Roles as Array<{ Ref: string }>).map((role) => role.Ref));
    return Object.entries(resourcesOf('AWS::Lambda::Function'))
      .filter(([, fn]) => readers.includes((fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]))
      .map(([, fn]) => String(fn.Properties.FunctionName))
      .sort();
  }

  it('every GetSecretValue grant names one secret of the stage: no function reads a secret it is not listed for below', () => {
    const secrets = Object.keys(resourcesOf('AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(3);
    const grants = Object.values(resourcesOf('AWS::IAM::Policy')).flatMap((policy) =>
      (
        policy.Properties.PolicyDocument as { Statement: Array<{ Action: unknown; Resource: unknown }> }
      ).Statement.filter((statement) => JSON.stringify(statement.Action).includes('secretsmanager:')),
    );
    for (const grant of grants) expect(secrets.map((id) => ({ Ref: id }))).toContainEqual(grant.Resource);
  });

  it('a generated secret opens webhook signing secrets, readable only by the delivery and the resource that gives its public key', () => {
    const secretId = logicalIdWhere('AWS::SecretsManager::Secret', 'Name', `cxm-${config.stage}-webhook-secret-key`);
    expect(readersOf(secretId)).toEqual([
      `cxm-${config.stage}-deliverWebhooks`,
      `cxm-${config.stage}-publishWebhookSealingKey`,
    ]);
    const variables = (id: string) =>
      (resource(functionLogicalId(id)).Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables('deliverWebhooks').CXM_WEBHOOK_SECRET_KEY_ARN).toEqual({ Ref: secretId });
    // The functions that make signing secrets hold the public key alone, as the resource answers it.
    const [sealingKeyId, sealingKey] = Object.entries(resourcesOf('Custom::WebhookSealingKey'))[0]!;
    expect(sealingKey.Properties).toMatchObject({ SecretId: { Ref: secretId }, Generation: '1' });
    for (const id of ['createWebhookEndpoint', 'rotateWebhookSecret']) {
      expect(variables(id).CXM_WEBHOOK_SEALING_KEY, id).toEqual({ 'Fn::GetAtt': [sealingKeyId, 'PublicKey'] });
      expect(variables(id).CXM_WEBHOOK_SECRET_KEY_ARN, id).toBeUndefined();
    }
  });

  it('a stage whose webhook secret key generation is no whole number of at least 1 fails the synth, naming it', () => {
    for (const secretKeyGeneration of [0, 1.5]) {
      const lite = stageConfig('lite');
      const bad: StageConfig = { ...lite, webhooks: { ...lite.webhooks, secretKeyGeneration } };
      expect(
        () =>
          new CxmStack(new App({ ...WITHOUT_BUILTIN_VALIDATION, context: { [BUNDLING_STACKS]: [] } }), { config: bad }),
      ).toThrow(
        `webhooks.secretKeyGeneration of stage lite must be a whole number of at least 1, not ${secretKeyGeneration}`,
      );
    }
  });

  it('only the sealing key resource may put a value of the webhook secret key', () => {
    const putters = Object.values(resourcesOf('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes('secretsmanager:PutSecretValue'),
    );
    expect(
      putters.flatMap((policy) => (policy.Properties.Roles as Array<{ Ref: string }>).map((role) => role.Ref)),
    ).toEqual([
      (resource(functionLogicalId(WEBHOOK_SEALING_KEY.id)).Properties.Role as { 'Fn::GetAtt': [string] })[
        'Fn::GetAtt'
      ][0],
    ]);
  });

  it('a generated secret signs reporting cursors, readable by the reporting functions only', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Name: `cxm-${config.stage}-cursor-secret`,
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
    const secretId = logicalIdWhere('AWS::SecretsManager::Secret', 'Name', `cxm-${config.stage}-cursor-secret`);
    expect(readersOf(secretId)).toEqual([
      `cxm-${config.stage}-listAssistantConversations`,
      `cxm-${config.stage}-listVocConversations`,
    ]);
    for (const id of ['listAssistantConversations', 'listVocConversations']) {
      const variables = (
        resource(functionLogicalId(id)).Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables.CXM_CURSOR_SECRET_ARN).toEqual({ Ref: secretId });
    }
  });

  it('a generated secret tags API keys, readable by the authorizer only, which is told whether untagged keys are accepted', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Name: `cxm-${config.stage}-key-tag-secret`,
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
    const secretId = logicalIdWhere('AWS::SecretsManager::Secret', 'Name', `cxm-${config.stage}-key-tag-secret`);
    expect(readersOf(secretId)).toEqual([`cxm-${config.stage}-authorizer`]);
    expect(withVariable(config.stage, FUNCTION_ENV.keyTagSecretArn)).toEqual({
      [`cxm-${config.stage}-authorizer`]: { Ref: secretId },
    });
    expect(config.edge.acceptUntaggedKeys).toBe(true);
    expect(withVariable(config.stage, FUNCTION_ENV.acceptUntaggedKeys)).toEqual({
      [`cxm-${config.stage}-authorizer`]: 'true',
    });
    expect(withVariable(withOrigins.stage, FUNCTION_ENV.acceptUntaggedKeys)).toEqual({
      [`cxm-${withOrigins.stage}-authorizer`]: 'false',
    });
  });

  it('the API stage is named after the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: config.stage, TracingEnabled: true });
  });
});

describe('rate limits', () => {
  it('the API takes usage-plan keys from the authorizer, never from a client header', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('one usage plan, named for the CLI, throttles each tenant (each usage identity) at the stage rate and burst (50/100) on this API stage', () => {
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
    const [plan] = Object.values(resourcesOf('AWS::ApiGateway::UsagePlan'));
    expect(plan!.Properties).toMatchObject({
      UsagePlanName: `cxm-${config.stage}`,
      Throttle: { RateLimit: 50, BurstLimit: 100 },
      ApiStages: [
        {
          ApiId: { Ref: Object.keys(resourcesOf('AWS::ApiGateway::RestApi'))[0] },
          Stage: { Ref: Object.keys(resourcesOf('AWS::ApiGateway::Stage'))[0] },
        },
      ],
    });
    expect(config.rateLimit).toEqual({ rate: 50, burst: 100 });
    // No API keys in the template: `cxm keys create --stage` adds one per tenant key.
    template.resourceCountIs('AWS::ApiGateway::ApiKey', 0);
  });

  it.each<[string, number, string, Record<string, string>?]>([
    ['THROTTLED', 429, 'RateLimitExceeded', { 'Retry-After': "'1'" }],
    ['QUOTA_EXCEEDED', 429, 'RateLimitExceeded', { 'Retry-After': "'1'" }],
    ['REQUEST_TOO_LARGE', 413, 'PayloadTooLarge'],
    ['INTEGRATION_TIMEOUT', 504, 'GatewayTimeout'],
    ['AUTHORIZER_FAILURE', 503, 'ServiceUnavailable'],
    ['AUTHORIZER_CONFIGURATION_ERROR', 503, 'ServiceUnavailable'],
    ['INVALID_API_KEY', 401, 'Unauthenticated'],
    ['BAD_REQUEST_BODY', 400, 'BadRequest'],
    ['BAD_REQUEST_PARAMETERS', 400, 'BadRequest'],
  ])('gateway response %s is %i %s with the request id', (type, status, code, headers = {}) => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      StatusCode: String(status),
      ResponseParameters: Match.objectLike({
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        ...Object.fromEntries(
          Object.entries(headers).map(([name, value]) => [`gatewayresponse.header.${name}`, value]),
        ),
      }),
      ResponseTemplates: { 'application/json': Match.serializedJson({ code, message: Match.stringLikeRegexp('.') }) },
    });
  });
});

describe('before the authorizer: stage throttle, reserved concurrency, web ACL', () => {
  const functionNamed = (t: Template, name: string) =>
    Object.values(t.findResources('AWS::Lambda::Function')).find(
      (fn) => (fn as CfnResource).Properties.FunctionName === name,
    ) as CfnResource;

  it('the stage throttles each of its methods at the stage setting (MethodSettings */*)', () => {
    expect(config.edge.stageRateLimit).toEqual({ rate: 2000, burst: 4000 });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: config.stage,
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 2000,
          ThrottlingBurstLimit: 4000,
        }),
      ]),
    });
    originsTemplate.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 })]),
    });
  });

  it('the authorizer and the document function (which callers without a valid key can make run) and the recording processor (which one tenant could flood) have reserved concurrency; no other function does', () => {
    expect(functionNamed(template, `cxm-${config.stage}-authorizer`).Properties.ReservedConcurrentExecutions).toBe(
      config.edge.authorizerReservedConcurrency,
    );
    expect(
      functionNamed(template, `cxm-${config.stage}-${OPENAPI_DOCUMENT_OPERATION}`).Properties
        .ReservedConcurrentExecutions,
    ).toBe(config.edge.documentReservedConcurrency);
    expect(
      functionNamed(template, `cxm-${config.stage}-processRecording`).Properties.ReservedConcurrentExecutions,
    ).toBe(config.recordings.processorReservedConcurrency);
    expect([
      config.edge.authorizerReservedConcurrency,
      config.edge.documentReservedConcurrency,
      config.recordings.processorReservedConcurrency,
    ]).toEqual([50, 2, 10]);
    const reserved = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) => (fn as CfnResource).Properties.ReservedConcurrentExecutions !== undefined,
    );
    expect(reserved).toHaveLength(3);
    expect(
      Object.values(originsTemplate.findResources('AWS::Lambda::Function')).filter(
        (fn) => (fn as CfnResource).Properties.ReservedConcurrentExecutions !== undefined,
      ),
    ).toHaveLength(0);
  });

  it('the template reserves what stageReservedConcurrency says, function by function: the sum cxm preflight holds the account to', () => {
    for (const [t, stage] of [
      [template, config],
      [originsTemplate, withOrigins],
    ] as const) {
      const reservedIn = (name: string) => functionNamed(t, name)?.Properties.ReservedConcurrentExecutions;
      const reserved = Object.values(t.findResources('AWS::Lambda::Function')).map(
        (fn) => ((fn as CfnResource).Properties.ReservedConcurrentExecutions as number | undefined) ?? 0,
      );
      expect(reserved.reduce((total, executions) => total + executions, 0)).toBe(stageReservedConcurrency(stage));
      for (const reservation of concurrencyReservations(stage))
        expect(reservedIn(reservation.functionName), reservation.functionName).toBe(reservation.executions);
    }
    expect(stageReservedConcurrency(config)).toBe(62);
    expect(stageReservedConcurrency(withOrigins)).toBe(0);
  });

  it('a regional web ACL on the stage blocks an address past its rate per 5 minutes with 429 RateLimitExceeded and Retry-After', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const [acl] = Object.entries(resourcesOf('AWS::WAFv2::WebACL'));
    expect(acl![1].Properties).toMatchObject({
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      CustomResponseBodies: { RateLimited: { ContentType: 'APPLICATION_JSON', Content: expect.any(String) } },
    });
    expect(wafRule(template, 'RequestsPerIp')).toMatchObject({
      Statement: {
        RateBasedStatement: {
          AggregateKeyType: 'IP',
          Limit: config.edge.wafRequestsPerIpPer5Minutes,
          EvaluationWindowSec: 300,
        },
      },
      Action: {
        Block: {
          CustomResponse: {
            ResponseCode: 429,
            CustomResponseBodyKey: 'RateLimited',
            ResponseHeaders: [{ Name: 'Retry-After', Value: '60' }],
          },
        },
      },
    });
    const body = JSON.parse(
      (acl![1].Properties as { CustomResponseBodies: { RateLimited: { Content: string } } }).CustomResponseBodies
        .RateLimited.Content,
    ) as unknown;
    expect(body).toEqual({ code: 'RateLimitExceeded', message: expect.stringMatching(/retry after 60 seconds/) });
    const [association] = Object.values(resourcesOf('AWS::WAFv2::WebACLAssociation'));
    expect(association!.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [acl![0], 'Arn'] });
    const arn = JSON.stringify(association!.Properties.ResourceArn);
    expect(arn).toContain(Object.keys(resourcesOf('AWS::ApiGateway::RestApi'))[0]);
    expect(arn).toContain('/stages/');
    expect(arn).toContain(Object.keys(resourcesOf('AWS::ApiGateway::Stage'))[0]);
    originsTemplate.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  it('every listed stage has a web ACL and a stage throttle above its per-tenant rate', () => {
    for (const stage of ['dev', 'prod', 'lite', 'local', 'alice']) {
      const { edge, rateLimit } = stageConfig(stage);
      expect(edge.wafRequestsPerIpPer5Minutes).toBeGreaterThan(rateLimit.rate * 300);
      expect(edge.stageRateLimit.rate).toBeGreaterThan(rateLimit.rate);
    }
  });

  it("AWS's IP reputation list is on by default and blocks (the gateway's WAF_FILTERED: 403 in our shape); the anonymous IP list is off", () => {
    for (const stage of ['dev', 'prod', 'lite', 'local', 'alice'])
      expect(stageConfig(stage).edge).toMatchObject({ wafIpReputationList: true, wafAnonymousIpList: false });
    expect(wafRule(template, 'AWSManagedRulesAmazonIpReputationList')).toEqual({
      Name: 'AWSManagedRulesAmazonIpReputationList',
      Priority: 0,
      OverrideAction: { None: {} },
      Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesAmazonIpReputationList' } },
      VisibilityConfig: expect.objectContaining({
        MetricName: `cxm-${config.stage}-AWSManagedRulesAmazonIpReputationList`,
      }),
    });
    expect(wafRules(template).map((rule) => rule.Name)).not.toContain('AWSManagedRulesAnonymousIpList');
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'WAF_FILTERED',
      StatusCode: '403',
    });
  });

  it('each managed rule group follows its setting; the anonymous list, when on, only counts hosting providers (where callers run)', () => {
    const flipped = stageTemplate('lite-flipped');
    expect(flipped.config.edge).toMatchObject({ wafIpReputationList: false, wafAnonymousIpList: true });
    const names = wafRules(flipped.template).map((rule) => rule.Name);
    expect(names).not.toContain('AWSManagedRulesAmazonIpReputationList');
    expect(wafRules(flipped.template).find((rule) => rule.Name === 'AWSManagedRulesAnonymousIpList')).toMatchObject({
      OverrideAction: { None: {} },
      Statement: {
        ManagedRuleGroupStatement: {
          VendorName: 'AWS',
          Name: 'AWSManagedRulesAnonymousIpList',
          RuleActionOverrides: [{ Name: 'HostingProviderIPList', ActionToUse: { Count: {} } }],
        },
      },
    });
    // With every WAF setting off there is no web ACL at all.
    originsTemplate.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  it('a second rate rule, far lower, counts only requests whose Authorization cannot hold a key, and blocks only those (429 in our shape)', () => {
    expect(config.edge.wafMalformedKeyRequestsPerIpPer5Minutes).toBe(1000);
    const rule = wafRule(template, 'MalformedKeyRequestsPerIp') as {
      Statement: { RateBasedStatement: Record<string, unknown> };
      Action: unknown;
    };
    expect(rule.Action).toEqual(wafRule(template, 'RequestsPerIp').Action);
    const { ScopeDownStatement: scopeDown, ...rate } = rule.Statement.RateBasedStatement;
    expect(rate).toEqual({ AggregateKeyType: 'IP', Limit: 1000, EvaluationWindowSec: 300 });
    // Not (a tagged key, or an untagged one while the stage accepts them), in the lower-cased header.
    const patterns = (
      scopeDown as {
        NotStatement: {
          Statement: { OrStatement: { Statements: Array<{ RegexMatchStatement: Record<string, unknown> }> } };
        };
      }
    ).NotStatement.Statement.OrStatement.Statements;
    expect(patterns.map((pattern) => pattern.RegexMatchStatement)).toEqual(
      keyHeaderPatterns(true).map((RegexString) => ({
        FieldToMatch: { SingleHeader: { Name: 'authorization' } },
        RegexString,
        TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
      })),
    );
    // Once untagged keys are refused, only the tagged form holds a key: one pattern, no Or.
    const flipped = wafRules(stageTemplate('lite-flipped').template).find(
      (candidate) => candidate.Name === 'MalformedKeyRequestsPerIp',
    ) as typeof rule;
    expect(flipped.Statement.RateBasedStatement.ScopeDownStatement).toEqual({
      NotStatement: {
        Statement: { RegexMatchStatement: expect.objectContaining({ RegexString: keyHeaderPatterns(false)[0] }) },
      },
    });
  });

  it("the key patterns are what the authorizer accepts: any Bearer case, the key's forms, nothing else", () => {
    const holdsKey = (header: string, acceptUntagged: boolean) =>
      keyHeaderPatterns(acceptUntagged).some((pattern) => new RegExp(pattern).test(header.toLowerCase()));
    const tagged = generateKey('a-key-tag-secret-for-the-patterns-0123456789').key;
    const untagged = tagged.slice(0, -9);
    for (const header of [`Bearer ${tagged}`, `bearer ${tagged}`, `BEARER\t${tagged} `])
      expect(holdsKey(header, false), header).toBe(true);
    expect(holdsKey(`Bearer ${untagged}`, true)).toBe(true);
    expect(holdsKey(`Bearer ${untagged}`, false)).toBe(false);
    for (const header of [
      '',
      'Bearer',
      `Basic ${tagged}`,
      tagged,
      `Bearer ${tagged}x`,
      `Bearer ${tagged.slice(0, -1)}`,
      `Bearer cxm_${'a'.repeat(12)}`,
      `Bearer ${tagged} ${tagged}`,
    ]) {
      expect(holdsKey(header, true), header).toBe(false);
    }
  });
});

/** The rules of the template's one web ACL (a synthesized stack, or a stage variant's template). */
function wafRules(t: Template | CfnTemplate): Array<Record<string, unknown>> {
  const resources = (t instanceof Template ? t.toJSON() : t).Resources as Record<
    string,
    { Type: string; Properties?: Record<string, unknown> }
  >;
  const acl = Object.values(resources).find((candidate) => candidate.Type === 'AWS::WAFv2::WebACL');
  return (acl?.Properties?.Rules as Array<Record<string, unknown>> | undefined) ?? [];
}

function wafRule(t: Template | CfnTemplate, name: string): Record<string, unknown> {
  const rule = wafRules(t).find((candidate) => candidate.Name === name);
  if (!rule) throw new Error(`no web ACL rule ${name}`);
  return rule;
}

/** Function name -> its environment variables, for every function of the stage's stack. */
function environments(stage: string): Map<string, Record<string, unknown>> {
  const functions = (stage === withOrigins.stage ? originsTemplate : template).findResources(
    'AWS::Lambda::Function',
  ) as Record<string, { Properties: { FunctionName?: string; Environment?: { Variables?: Record<string, unknown> } } }>;
  return new Map(
    Object.values(functions).map((fn) => [
      String(fn.Properties.FunctionName),
      fn.Properties.Environment?.Variables ?? {},
    ]),
  );
}

function withVariable(stage: string, name: string): Record<string, unknown> {
  return Object.fromEntries(
    [...environments(stage)]
      .filter(([, variables]) => name in variables)
      .map(([fn, variables]) => [fn, variables[name]]),
  );
}

const checkingRoutes = (routes as readonly RouteSpec[]).filter((route) => route.checksOrigin).map((route) => route.id);

describe("CXM_ALLOWED_ORIGINS: the stage's MCP origins on the functions of routes that check them", () => {
  it('the MCP route is the one that checks origins', () => {
    expect(checkingRoutes).toEqual(['mcpBots']);
  });

  it('by default: set on the MCP function only, and empty (no Origin allowed)', () => {
    expect(withVariable('dev', FUNCTION_ENV.allowedOrigins)).toEqual(
      Object.fromEntries(checkingRoutes.map((id) => [`cxm-dev-${id}`, ''])),
    );
  });

  it("from the stage's mcpAllowedOrigins, normalised, on the MCP function only", () => {
    expect(withVariable('lite', FUNCTION_ENV.allowedOrigins)).toEqual(
      Object.fromEntries(
        checkingRoutes.map((id) => [`cxm-lite-${id}`, 'https://app.example.com,http://localhost:8080']),
      ),
    );
  });

  it('every stage allows no origin unless its config lists one', () => {
    for (const stage of ['dev', 'prod', 'lite', 'local', 'staging'])
      expect(stageConfig(stage).mcpAllowedOrigins).toEqual([]);
  });

  it('no deployed function gets the local Host list: API Gateway routes by host itself', () => {
    expect(withVariable('dev', FUNCTION_ENV.allowedHosts)).toEqual({});
  });

  it('a stage listing something that is no origin fails the synth, saying what to write', () => {
    const config: StageConfig = { ...stageConfig('lite'), mcpAllowedOrigins: ['app.example.com'] };
    expect(
      () => new CxmStack(new App({ ...WITHOUT_BUILTIN_VALIDATION, context: { [BUNDLING_STACKS]: [] } }), { config }),
    ).toThrow(/mcpAllowedOrigins of stage lite: "app.example.com" is not an origin: write scheme:\/\/host\[:port\]/);
  });
});

describe('tenant webhooks', () => {
  const mappingsOf = (functionName: string) =>
    Object.values(resourcesOf('AWS::Lambda::EventSourceMapping')).filter((mapping) =>
      referencedIds(mapping.Properties.FunctionName).has(functionLogicalId(functionName)),
    );
  const tableOfStream = (arn: unknown) =>
    [...referencedIds(arn)].map((id) => resource(id).Properties.TableName as string)[0];

  it("the fan-out reads each source table's stream, filtered to the records that are events, from now on, a key's records in order, its failures kept", () => {
    const mappings = mappingsOf(WEBHOOK_FAN_OUT.id);
    expect(mappings).toHaveLength(WEBHOOK_STREAM_SOURCES.length);
    for (const source of WEBHOOK_STREAM_SOURCES) {
      const mapping = mappings.find(
        (candidate) =>
          tableOfStream(candidate.Properties.EventSourceArn) === physicalTableName(config.stage, source.table),
      );
      expect(mapping, source.table).toBeDefined();
      expect(mapping!.Properties).toMatchObject({
        StartingPosition: 'LATEST',
        FilterCriteria: { Filters: [{ Pattern: JSON.stringify(source.pattern) }] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BisectBatchOnFunctionError: true,
        // The local stream reader plays these (infra/local/emulators/local-streams.ts).
        BatchSize: WEBHOOK_FAN_OUT.mapping.batchSize,
        ParallelizationFactor: WEBHOOK_FAN_OUT.mapping.parallelizationFactor,
      });
      const [dlq] = referencedIds(mapping!.Properties.DestinationConfig);
      expect(resource(dlq!).Properties.QueueName).toBe(`cxm-${config.stage}-webhook-fan-out-dlq`);
    }
  });

  it('the delivery function takes its tasks from an encrypted queue with a dead-letter queue, under the stage rules for targets', () => {
    const [mapping] = mappingsOf(WEBHOOK_DELIVERY.id);
    expect(mapping?.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    const [queueId] = referencedIds(mapping!.Properties.EventSourceArn);
    const queue = resource(queueId!).Properties;
    expect(queue).toMatchObject({ QueueName: deliveryQueueName(config.stage), SqsManagedSseEnabled: true });
    expect((queue.RedrivePolicy as { maxReceiveCount: number }).maxReceiveCount).toBe(5);
    const variables = (
      resource(functionLogicalId(WEBHOOK_DELIVERY.id)).Properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(variables[FUNCTION_ENV.webhookTargets]).toBe('stage');
    expect(referencedIds(variables[FUNCTION_ENV.webhookQueueUrl])).toEqual(new Set([queueId]));
  });

  it('the sweeper runs every minute, with no retry (the next run takes over), reads the sweep index, moves times on and sends tasks: nothing more', () => {
    const sweeperId = functionLogicalId(WEBHOOK_SWEEP.id);
    const [rule, ...others] = Object.values(resourcesOf('AWS::Events::Rule')).filter(
      (candidate) => candidate.Properties.Name === webhookSweepRuleName(config.stage),
    );
    expect(others).toHaveLength(0);
    expect(rule!.Properties).toMatchObject({
      ScheduleExpression: `rate(${WEBHOOK_SWEEP_MINUTES} minute)`,
      Targets: [
        expect.objectContaining({
          Arn: { 'Fn::GetAtt': [sweeperId, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
    expect(mappingsOf(WEBHOOK_SWEEP.id)).toEqual([]);

    // UpdateItem on the deliveries table, Query on its sweep index alone: no read of any item by key.
    expect([...tableGrants(sweeperId)]).toEqual([['webhookDeliveries', ['dynamodb:UpdateItem', 'dynamodb:Query']]]);
    const query = dynamoStatements(sweeperId).find((statement) => [statement.Action].flat().includes('dynamodb:Query'));
    expect(JSON.stringify(query?.Resource)).toContain(`/index/${tableSpecs.webhookDeliveries.indexes[0]!.name}`);
    const [queueId] = referencedIds(mappingsOf(WEBHOOK_DELIVERY.id)[0]!.Properties.EventSourceArn);
    const roleId = [...referencedIds(resource(sweeperId).Properties.Role)][0]!;
    const queueStatements = Object.values(resourcesOf('AWS::IAM::Policy'))
      .filter((policy) => referencedIds(policy.Properties.Roles).has(roleId))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: DynamoStatement[] }).Statement)
      .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('sqs:')));
    expect(queueStatements).toEqual([
      expect.objectContaining({
        Action: expect.arrayContaining(['sqs:SendMessage']),
        Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
      }),
    ]);
    const variables = (resource(sweeperId).Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(referencedIds(variables[FUNCTION_ENV.webhookQueueUrl])).toEqual(new Set([queueId]));
    expect(referencedIds(variables[tableSpecs.webhookDeliveries.envVar])).toEqual(
      new Set([tableLogicalId('webhookDeliveries')]),
    );
  });

  it('the deliveries table has a sparse sweep index by shard and time, holding what the sweeper reads and not the bodies', () => {
    const [index] = tableSpecs.webhookDeliveries.indexes;
    expect(resource(tableLogicalId('webhookDeliveries')).Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: index!.name,
        KeySchema: [
          { AttributeName: 'sweepShard', KeyType: 'HASH' },
          { AttributeName: 'sweepAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index!.include!] },
      },
    ]);
    expect(index!.include).not.toContain('body');
  });

  it("the delivery function and the routes that register targets know the API's own host, which no webhook may target", () => {
    const [restApiId] = Object.keys(template.findResources('AWS::ApiGateway::RestApi'));
    const ownHost = {
      'Fn::Join': ['', [{ Ref: restApiId }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
    };
    const targetRoutes = (routes as readonly RouteSpec[])
      .filter((route) => route.webhookTargets)
      .map((route) => route.id);
    expect(targetRoutes.length).toBeGreaterThan(0);
    for (const id of [WEBHOOK_DELIVERY.id, ...targetRoutes]) {
      const variables = (
        resource(functionLogicalId(id)).Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables[FUNCTION_ENV.apiHosts], id).toEqual(ownHost);
    }
  });
});
