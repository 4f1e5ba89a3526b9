/**
 * The `bundles` runtime (`CXM_RUNTIME=bundles`): every route served by the bundle CDK would upload
 * for it, read from the synthesized cloud assembly (Handler, Environment, Timeout, MemorySize),
 * each function in its own pool of worker processes on Lambda's Node. Which function serves which
 * method, and which function authorizes, is the template's say, not the route table's: a route the
 * template leaves out is not served, as API Gateway would not serve it. Nothing is imported from the
 * TypeScript sources of the functions.
 */
import { randomUUID } from 'node:crypto';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyResult,
  DynamoDBBatchResponse,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { lambdaNode } from '#infra/lambda-node';
import { AUTHORIZER_IDENTITY_SOURCES, functionName } from '#infra/stage-names';
import type { HttpMethod, RouteSpec, SecretId } from '#shared/api/route-spec';
import { routes as routeTable } from '#shared/api/route-table';
import { sealingPublicKeyText } from '#shared/domain/webhooks/sealed-secret';
import { REPORTING_INDEXER } from '#shared/reporting/reporting-indexer';
import type { TableId } from '#shared/store/table-specs';
import type { EventTarget } from '../emulators/deliver-events.ts';
import {
  type LocalSecret,
  type LocalSecretsManager,
  startLocalSecretsManager,
} from '../emulators/local-secrets-manager.ts';
import type { StreamTarget } from '../emulators/local-streams.ts';
import type { AuthorizerHandler, ProxyHandler } from '../gateway/local-gateway.ts';
import { FunctionPool, type FunctionSpec } from './function-pool.ts';
import type { FunctionRuntime } from './function-runtime.ts';
import { type AssemblyFunction, readStackAssembly, type StackAssembly } from './read-assembly.ts';
import { localSecretArn, resolveEnvironment, resolveStructure, secretIdOf } from './resolve-environment.ts';

/** The identity source the local gateway reads, as the stack's authorizer must declare it. */
const AUTHORIZATION_IDENTITY_SOURCE = AUTHORIZER_IDENTITY_SOURCES.join(',');

export interface BundleRuntimeOptions {
  assemblyDir: string;
  stackId: string;
  /** The stage the assembly was synthesized for (its table and secret names carry it). */
  stage: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  dynamoEndpoint: string;
  /** The local S3 server (the recordings bucket). */
  s3Endpoint: string;
  /** The local stand-in for Amazon Transcribe. */
  transcribeEndpoint: string;
  /** The local stand-in for the SQS queue of webhook delivery tasks: its endpoint and the queue's URL. */
  sqs: { endpoint: string; queueUrl: string };
  /** The local OpenSearch engine, when the assembly's stage searches a domain. */
  opensearchEndpoint?: string;
  /** The local gateway's hosts, comma-separated: what the API's own host stands for here. */
  apiHosts?: string;
  /** The local physical name of each table spec. */
  tables: Record<TableId, string>;
  /** Local values of the stage's secrets, by secret id: the current version and, after a rotation, the previous one. */
  secrets: Partial<Record<SecretId, { current: string | undefined; previous?: string | undefined }>>;
  /** Variables of this machine that win over the template's (log level, metrics), when set. */
  overrides: Record<string, string>;
  /** Most environments of one function alive at once; further requests wait for one. */
  maxEnvironments: number;
  /** Lambda's REPORT line after every invocation. */
  report?: (line: string) => void;
  /** Extra variables for a function, e.g. the local gateway's own origins (undefined: none). */
  extraEnvironment?: (fn: AssemblyFunction, variables: Record<string, string>) => Record<string, string> | undefined;
}

/** Environment variables Lambda sets in every execution environment of a function. */
function lambdaVariables(fn: AssemblyFunction, options: BundleRuntimeOptions): Record<string, string> {
  return {
    ...(process.env.PATH !== undefined && { PATH: process.env.PATH }),
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    _HANDLER: fn.handler,
    LAMBDA_TASK_ROOT: fn.codeDir,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    AWS_REGION: options.region,
    AWS_DEFAULT_REGION: options.region,
    AWS_ACCESS_KEY_ID: options.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: options.credentials.secretAccessKey,
  };
}

/** Every secret of the template the functions may ask for, with its local value. */
function localSecrets(assembly: StackAssembly, options: BundleRuntimeOptions): LocalSecret[] {
  const secrets: LocalSecret[] = [];
  for (const resource of Object.values(assembly.template.Resources)) {
    if (resource.Type !== 'AWS::SecretsManager::Secret') continue;
    const name = resource.Properties?.Name;
    const id = secretIdOf(options.stage, name);
    const versions = id ? options.secrets[id] : undefined;
    if (typeof name === 'string' && versions?.current) {
      secrets.push({
        name,
        arn: localSecretArn(options.region, name),
        value: versions.current,
        ...(versions.previous && { previous: versions.previous }),
      });
    }
  }
  return secrets;
}

/**
 * The route table's routes as the template serves them: each keeps the methods the template has at
 * its path behind the authorizer; a route with none is left out (404, as API Gateway answers).
 */
function servedRoutes(assembly: StackAssembly): { routes: RouteSpec[]; functionFor: Map<string, string> } {
  const functionFor = new Map<string, string>();
  const routes: RouteSpec[] = [];
  const table: readonly RouteSpec[] = routeTable;
  for (const route of table) {
    const methods = [route.method, ...(route.otherMethods ?? [])].filter((method) => {
      const declared = assembly.methods.find(
        (m) => m.path === route.path && m.httpMethod === method && m.authorizationType === 'CUSTOM',
      );
      if (declared) functionFor.set(`${method} ${route.path}`, declared.functionId);
      return declared !== undefined;
    });
    const [first, ...others] = methods;
    if (first) routes.push({ ...route, method: first as HttpMethod, otherMethods: others as HttpMethod[] });
  }
  return { routes, functionFor };
}

export async function startBundleRuntime(options: BundleRuntimeOptions): Promise<FunctionRuntime> {
  const assembly = readStackAssembly(options.assemblyDir, options.stackId);
  const node = lambdaNode();
  const secrets = localSecrets(assembly, options);
  const webhookSecretKey = options.secrets.webhookSecretKey?.current;
  let secretsManager: LocalSecretsManager | undefined;
  if (secrets.length > 0) secretsManager = await startLocalSecretsManager(secrets, options.credentials);

  const pools = new Map<string, FunctionPool>();
  const poolFor = (logicalId: string): FunctionPool => {
    let pool = pools.get(logicalId);
    if (!pool) {
      const fn = assembly.functions.get(logicalId);
      if (!fn) throw new Error(`the template has no function ${logicalId}`);
      const templateVariables = resolveEnvironment(fn.functionName, fn.environment, assembly.template, {
        stage: options.stage,
        region: options.region,
        tables: options.tables,
        webhookQueueUrl: options.sqs.queueUrl,
        ...(options.opensearchEndpoint && { opensearchEndpoint: options.opensearchEndpoint }),
        ...(options.apiHosts && { apiHosts: options.apiHosts }),
        ...(webhookSecretKey && { webhookSealingKey: sealingPublicKeyText(webhookSecretKey) }),
      });
      const environment = {
        ...lambdaVariables(fn, options),
        ...templateVariables,
        // Where the AWS services of the template are on this machine.
        AWS_ENDPOINT_URL_DYNAMODB: options.dynamoEndpoint,
        AWS_ENDPOINT_URL_S3: options.s3Endpoint,
        AWS_ENDPOINT_URL_TRANSCRIBE: options.transcribeEndpoint,
        AWS_ENDPOINT_URL_SQS: options.sqs.endpoint,
        ...(secretsManager && { AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint }),
        ...options.overrides,
      };
      const spec: FunctionSpec = {
        functionName: fn.functionName,
        handler: fn.handler,
        codeDir: fn.codeDir,
        environment: { ...environment, ...options.extraEnvironment?.(fn, environment) },
        timeoutSeconds: fn.timeoutSeconds,
        memoryMb: fn.memoryMb,
      };
      pool = new FunctionPool(spec, node.execPath, options.maxEnvironments, { report: options.report });
      pools.set(logicalId, pool);
    }
    return pool;
  };

  try {
    const { routes, functionFor } = servedRoutes(assembly);
    const authorizerIds = new Set(
      assembly.methods.filter((m) => m.authorizationType === 'CUSTOM').map((m) => m.authorizerId),
    );
    const [authorizerId, ...otherAuthorizers] = authorizerIds;
    const authorizerSpec = authorizerId ? assembly.authorizers.get(authorizerId) : undefined;
    if (!authorizerSpec || otherAuthorizers.length > 0)
      throw new Error(
        `the local gateway serves one REQUEST authorizer; the template's methods use ${authorizerIds.size}`,
      );
    if (authorizerSpec.type !== 'REQUEST' || authorizerSpec.identitySource !== AUTHORIZATION_IDENTITY_SOURCE) {
      throw new Error(
        `the local gateway serves a REQUEST authorizer on ${AUTHORIZATION_IDENTITY_SOURCE}; the template's is ${authorizerSpec.type} on ${authorizerSpec.identitySource}`,
      );
    }
    const authorizerPool = poolFor(authorizerSpec.functionId);
    const authorizer: AuthorizerHandler = async (event) =>
      (await authorizerPool.invoke(event, randomUUID())) as APIGatewayAuthorizerResult;

    const handlers = new Map<string, ProxyHandler>();
    for (const route of routes) {
      const methodPools = new Map<string, FunctionPool>();
      for (const method of [route.method, ...(route.otherMethods ?? [])])
        methodPools.set(method, poolFor(functionFor.get(`${method} ${route.path}`)!));
      handlers.set(route.id, async (event) => {
        const pool = methodPools.get(event.httpMethod);
        if (!pool) throw new Error(`no function serves ${event.httpMethod} ${route.path}`);
        return (await pool.invoke(event, event.requestContext.requestId)) as APIGatewayProxyResult;
      });
    }

    // The rules of the template, each target a function invoked as EventBridge invokes it (asynchronously).
    const local = { stage: options.stage, region: options.region, tables: options.tables };
    const eventTargets: EventTarget[] = [];
    const targetOf = (functionId: string): EventTarget => {
      let target = eventTargets.find((candidate) => candidate.name === functionId);
      if (!target) {
        target = {
          name: functionId,
          patterns: [],
          schedules: [],
          invoke: (event) => poolFor(functionId).invoke(event, randomUUID()),
        };
        eventTargets.push(target);
      }
      return target;
    };
    for (const rule of assembly.rules) {
      for (const functionId of rule.functionIds) {
        if ('pattern' in rule)
          targetOf(functionId).patterns.push(
            resolveStructure(rule.pattern, assembly.template, local, 'an EventBridge rule') as Record<string, unknown>,
          );
        else targetOf(functionId).schedules.push({ ruleName: rule.ruleName, everyMs: rule.everyMs });
      }
    }

    // The event source mappings: the table streams' readers (the indexer's, by its name; the
    // webhooks' fan-out's, all others) and the queue's consumer.
    const streamMappings = assembly.mappings.filter((mapping) => mapping.source.kind === 'stream');
    const queueMapping = assembly.mappings.find((mapping) => mapping.source.kind === 'queue');
    const indexerName = functionName(options.stage, REPORTING_INDEXER.id);
    const indexerId = streamMappings.find(
      (mapping) => assembly.functions.get(mapping.functionId)?.functionName === indexerName,
    )?.functionId;
    const fanOutId = streamMappings.find((mapping) => mapping.functionId !== indexerId)?.functionId;
    const tableName = (logicalId: string) => {
      const name = resolveStructure({ Ref: logicalId }, assembly.template, local, 'an event source mapping');
      if (typeof name !== 'string') throw new Error(`event source mapping: table ${logicalId} has no local name`);
      return name;
    };
    const streamTarget = (functionId: string): StreamTarget => {
      const mappings = streamMappings.filter((mapping) => mapping.functionId === functionId);
      // One function's mappings share their settings (infra/cdk/constructs/webhooks.ts).
      const { batchSize, parallelization } = mappings[0] ?? {};
      return {
        name: assembly.functions.get(functionId)?.functionName ?? functionId,
        ...(batchSize !== undefined && { batchSize }),
        ...(parallelization !== undefined && { parallelization }),
        sources: mappings.map((mapping) => ({
          tableName: tableName(mapping.source.logicalId),
          // One filter per mapping (infra/cdk/constructs/webhooks.ts); none lets every record through.
          pattern: mapping.patterns[0] ?? {},
        })),
        invoke: (event: DynamoDBStreamEvent) =>
          poolFor(functionId).invoke(event, randomUUID()) as Promise<DynamoDBBatchResponse | undefined>,
      };
    };
    const webhooks =
      fanOutId && queueMapping
        ? {
            fanOut: streamTarget(fanOutId),
            deliver: (event: SQSEvent) =>
              poolFor(queueMapping.functionId).invoke(event, randomUUID()) as Promise<SQSBatchResponse | undefined>,
          }
        : undefined;
    const indexerMapping = streamMappings.find((mapping) => mapping.functionId === indexerId);
    // The indexer's batches and retries as its mapping says: until its records are six hours old.
    const indexer: StreamTarget | undefined =
      indexerId && indexerMapping
        ? {
            ...streamTarget(indexerId),
            ...(indexerMapping.batchSize !== undefined && { batchSize: indexerMapping.batchSize }),
            retry: {
              attempts: indexerMapping.retryAttempts,
              ...(indexerMapping.maxRecordAgeMs !== undefined && { maxRecordAgeMs: indexerMapping.maxRecordAgeMs }),
            },
          }
        : undefined;

    return {
      routes,
      authorizer,
      handlers,
      eventTargets,
      ...(webhooks && { webhooks }),
      ...(indexer && { indexer }),
      authorizerCacheTtlSeconds: authorizerSpec.ttlSeconds,
      description: `bundles on node ${node.version} (cloud assembly ${options.assemblyDir})`,
      async close() {
        await Promise.all([...pools.values()].map((pool) => pool.close()));
        await secretsManager?.close();
      },
    };
  } catch (error) {
    await secretsManager?.close();
    throw error;
  }
}
