/**
 * The REST API, built entirely from the route table: one resource path and one method per route,
 * each with its own function granted only the route's tables, all behind one cached REQUEST
 * authorizer. Every error API Gateway makes by itself is reshaped into `{code, message}`.
 */

import { Stack } from 'aws-cdk-lib';
import {
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  RequestAuthorizer,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { AUTHORIZER_IDENTITY_SOURCES, functionName, secretName, usagePlanName } from '#infra/stage-names';
import {
  AUTHORIZER_HANDLER,
  AUTHORIZER_SECRETS,
  AUTHORIZER_TABLES,
  type RouteSpec,
  type SecretId,
  type TableAccess,
} from '#shared/api/route-spec';
import { routes } from '#shared/api/route-table';
import { RECORDINGS_PREFIX } from '#shared/domain/voc/recording-upload';
import type { WebhookTargetRules } from '#shared/domain/webhooks/webhook-target';
import { allowedOriginsValue } from '#shared/http/allowed-origins';
import { documentVersionRetention } from '#shared/settings/document-settings';
import { idempotencyTtlMs } from '#shared/settings/idempotency-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { maxEndpointsPerTenant } from '#shared/settings/webhook-settings';
import { DYNAMO_INDEX_TABLES } from '#shared/store/function-stores';
import type { TableId } from '#shared/store/table-specs';
import { reservedConcurrency } from '../stage/concurrency-reservations.ts';
import { documentVersionsEnvironment, type StageConfig } from '../stage/config.ts';
import { accessLogOptions } from './access-logs.ts';
import { addOpenApiDocument } from './api-docs.ts';
import { ApiFunction } from './api-function.ts';
import type { SpecTable } from './data.ts';
import { EdgeWebAcl, wantsWebAcl } from './edge-protection.ts';
import { addGatewayResponses } from './gateway-responses.ts';
import type { Recordings } from './recordings.ts';
import { type ReportingBackend, routeBundling } from './route-bundling.ts';
import type { ReportingSearch } from './search.ts';
import { WebhookSealingKey } from './webhook-sealing-key.ts';
import type { Webhooks } from './webhooks.ts';

/** How a function learns where its secret is (shared/secrets/cursor-keys.ts and key-tag-secrets.ts read it). */
const SECRET_ENV: Record<SecretId, string> = {
  cursorSecret: FUNCTION_ENV.cursorSecretArn,
  keyTagSecret: FUNCTION_ENV.keyTagSecretArn,
  webhookSecretKey: FUNCTION_ENV.webhookSecretKeyArn,
};
const SECRET_DESCRIPTIONS: Record<SecretId, string> = {
  cursorSecret: 'Signs reporting list cursors (HMAC-SHA256)',
  keyTagSecret:
    "Tags tenant API keys (HMAC-SHA256) so the authorizer refuses a made-up key before any read; 'cxm keys create' reads it",
  webhookSecretKey:
    "Its X25519 key pair seals tenants' webhook signing secrets at rest: read by the delivery function, and at deploy by the stack's sealing-key resource, which gives the registration and the rotation its public key",
};

export interface ApiProps {
  config: StageConfig;
  tables: Record<TableId, SpecTable>;
  /** The search domain, on stages whose reporting lists read OpenSearch. */
  search?: ReportingSearch;
  recordings: Recordings;
  /** The queue of webhook delivery tasks, for the routes that send to it (`webhookQueue`). */
  webhooks: Webhooks;
}

export class Api extends Construct {
  readonly restApi: RestApi;
  /** The host the stage's API answers on, which no webhook may target. */
  readonly apiHost: string;
  /** Lets `fn` read the stage's secrets `ids` (each created once, readable only by the functions granted it). */
  readonly grantSecrets: (fn: ApiFunction, ids: readonly SecretId[]) => void;
  readonly authorizerFunction: ApiFunction;
  /** Throttles each tenant through its own API Gateway key, and each key of several tenants through one of its own (not one per key: a tenant could multiply its rate by making keys). */
  readonly usagePlan: UsagePlan;
  /** The stage's web ACL, when its settings ask for one of its rules (edge.waf*). */
  readonly webAcl: CfnWebACL | undefined;
  /** Route id -> its function, for tests and for wiring alarms later. */
  readonly routeFunctions: ReadonlyMap<string, ApiFunction>;
  /** The public key of the webhook secret key, for the routes that seal (none: no such route). */
  readonly webhookSealingKey: WebhookSealingKey | undefined;

  constructor(scope: Construct, id: string, { config, tables, search, recordings, webhooks }: ApiProps) {
    super(scope, id);
    const { stage } = config;

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `cxm-${stage}`,
      description: 'CXM API (routes from shared/api/route-table.ts)',
      // Callers are trusted backends, not browsers around the world: no CloudFront edge hop.
      endpointTypes: [EndpointType.REGIONAL],
      // The account-wide CloudWatch role is account setup, not something one stack should own.
      cloudWatchRole: false,
      deployOptions: {
        stageName: stage,
        tracingEnabled: true,
        // Every request of the stage together, before any authorizer runs (edge-protection.ts).
        throttlingRateLimit: config.edge.stageRateLimit.rate,
        throttlingBurstLimit: config.edge.stageRateLimit.burst,
        ...accessLogOptions(this, config),
      },
      // The usage-plan key comes from the authorizer (`usageIdentifierKey`), never from the client:
      // callers send only their tenant key, and an `x-api-key` header has no effect.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
    });
    this.apiHost = `${this.restApi.restApiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`;
    // The stack outputs the URL once, as `ApiUrl`; RestApi's own hash-named output would repeat it.
    this.restApi.node.tryRemoveChild('Endpoint');
    addGatewayResponses(this.restApi);
    // Every tenant gets the stage's rate and burst, shared by its keys; `cxm keys` adds tenants.
    this.usagePlan = this.restApi.addUsagePlan('UsagePlan', {
      name: usagePlanName(stage),
      description: `Per-tenant throttle of stage ${stage}: each tenant has one API key in this plan`,
      throttle: { rateLimit: config.rateLimit.rate, burstLimit: config.rateLimit.burst },
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
    });

    // One generated secret per kind the authorizer or a route declares, readable only by those functions.
    const secrets = new Map<SecretId, Secret>();
    const secretFor = (id: SecretId) => {
      let secret = secrets.get(id);
      if (!secret) {
        secret = new Secret(this, `${id.charAt(0).toUpperCase()}${id.slice(1)}`, {
          secretName: secretName(stage, id),
          description: SECRET_DESCRIPTIONS[id],
          generateSecretString: { passwordLength: 64, excludePunctuation: true },
          removalPolicy: config.removalPolicy,
        });
        secrets.set(id, secret);
      }
      return secret;
    };
    this.grantSecrets = (fn: ApiFunction, ids: readonly SecretId[]) => {
      for (const id of ids) {
        const secret = secretFor(id);
        // The value only: grantRead would add DescribeSecret, which Powertools' getSecret never
        // calls. The secret is encrypted with AWS's managed key, whose use needs no grant.
        fn.addToRolePolicy(
          new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
        );
        fn.addEnvironment(SECRET_ENV[id], secret.secretArn);
      }
    };

    this.authorizerFunction = new ApiFunction(this, 'Authorizer', {
      entry: AUTHORIZER_HANDLER,
      functionName: functionName(stage, 'authorizer'),
      description: 'REQUEST authorizer: tenant API key -> tenants and scopes',
      config,
      // Any well-formed token makes it run: capped, so a flood cannot take the region's concurrency.
      ...reservedConcurrency(config, 'authorizer'),
    });
    for (const [tableId, access] of Object.entries(AUTHORIZER_TABLES) as [TableId, TableAccess][])
      this.authorizerFunction.bindTable(tables[tableId], access);
    this.grantSecrets(this.authorizerFunction, AUTHORIZER_SECRETS);
    this.authorizerFunction.addEnvironment(FUNCTION_ENV.acceptUntaggedKeys, String(config.edge.acceptUntaggedKeys));
    const authorizer = new RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: this.authorizerFunction,
      // A cached decision is per key: its answer, usage key included, is the same for
      // every path, so one authorizer call per key and TTL serves them all.
      identitySources: [...AUTHORIZER_IDENTITY_SOURCES],
      resultsCacheTtl: config.authorizerCacheTtl,
    });

    const routeFunctions = new Map<string, ApiFunction>();
    let sealingKey: WebhookSealingKey | undefined;
    const routeSpecs: readonly RouteSpec[] = routes;
    for (const route of routeSpecs) {
      const backend: ReportingBackend = search ? 'opensearch' : 'dynamodb';
      const fn = new ApiFunction(this, `${route.id}Function`, {
        entry: route.handler,
        functionName: functionName(stage, route.id),
        description: `${route.method} ${route.path}`,
        config,
        bundling: routeBundling(route, backend),
      });
      for (const [tableId, access] of Object.entries(route.tables) as [TableId, TableAccess][]) {
        // A list reading OpenSearch never touches the reporting table.
        if (route.reportingIndex && search && DYNAMO_INDEX_TABLES.includes(tableId)) continue;
        fn.bindTable(tables[tableId], access);
      }
      if (route.reportingIndex) {
        fn.addEnvironment(FUNCTION_ENV.reportingBackend, backend);
        if (search) {
          fn.addEnvironment(FUNCTION_ENV.opensearchEndpoint, `https://${search.domain.domainEndpoint}`);
          fn.addEnvironment(FUNCTION_ENV.opensearchIndexPrefix, search.indexPrefix);
          search.grantSearch(fn);
        }
      }
      if (route.tables.documentVersions) {
        const retention = documentVersionsEnvironment(config);
        documentVersionRetention(retention); // a bad stage setting fails the synthesis
        for (const [name, value] of Object.entries(retention)) fn.addEnvironment(name, value);
      }
      if (route.idempotencyKey) {
        const hours = String(config.idempotencyTtlHours);
        idempotencyTtlMs(hours); // a bad stage setting fails the synthesis, not the first request
        fn.addEnvironment(FUNCTION_ENV.idempotencyTtlHours, hours);
      }
      // Set even when empty: the function's configuration then says which origins it allows.
      if (route.checksOrigin) {
        fn.addEnvironment(
          FUNCTION_ENV.allowedOrigins,
          allowedOriginsValue(config.mcpAllowedOrigins, `mcpAllowedOrigins of stage ${stage}`),
        );
      }
      if (route.recordings === 'presign') {
        // A presigned URL acts with the signer's rights: these, on recording keys only.
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: ['s3:PutObject'],
            resources: [recordings.bucket.arnForObjects(`${RECORDINGS_PREFIX}*`)],
          }),
        );
        fn.addEnvironment(FUNCTION_ENV.recordingsBucket, recordings.bucket.bucketName);
        fn.addEnvironment(FUNCTION_ENV.recordingMaxBytes, String(config.recordings.maxUploadBytes));
        fn.addEnvironment(
          FUNCTION_ENV.recordingUploadUrlTtlSeconds,
          String(config.recordings.uploadUrlTtl.toSeconds()),
        );
        fn.addEnvironment(FUNCTION_ENV.recordingMaxInFlightPerTenant, String(config.recordings.maxInFlightPerTenant));
      }
      if (route.recordings === 'deadlines') {
        fn.addEnvironment(FUNCTION_ENV.recordingUploadGraceSeconds, String(config.recordings.uploadGrace.toSeconds()));
        fn.addEnvironment(
          FUNCTION_ENV.recordingProcessingWindowSeconds,
          String(config.recordings.processingWindow.toSeconds()),
        );
      }
      if (route.webhookTargets) {
        // Set, not left to the default: the function's configuration says which targets it allows.
        fn.addEnvironment(FUNCTION_ENV.webhookTargets, 'stage' satisfies WebhookTargetRules);
        fn.addEnvironment(FUNCTION_ENV.apiHosts, this.apiHost);
        const max = String(config.webhooks.maxEndpointsPerTenant);
        maxEndpointsPerTenant({ [FUNCTION_ENV.webhookMaxEndpoints]: max }); // a bad stage setting fails the synthesis
        fn.addEnvironment(FUNCTION_ENV.webhookMaxEndpoints, max);
      }
      if (route.webhookQueue) {
        fn.addEnvironment(FUNCTION_ENV.webhookQueueUrl, webhooks.queue.queueUrl);
        webhooks.queue.grantSendMessages(fn);
      }
      this.grantSecrets(fn, route.secrets ?? []);
      if (route.sealsWebhookSecrets) {
        sealingKey ??= new WebhookSealingKey(this, 'WebhookSealingKey', {
          config,
          secret: secretFor('webhookSecretKey'),
        });
        fn.addEnvironment(FUNCTION_ENV.webhookSealingKey, sealingKey.publicKey);
      }
      // Console test-invoke is not needed; the permission stays scoped to the deployed stage.
      const integration = new LambdaIntegration(fn, { proxy: true, allowTestInvoke: false });
      const resource = this.restApi.root.resourceForPath(route.path);
      // Further methods go to the same function, which answers them itself (MCP's 405).
      for (const method of [route.method, ...(route.otherMethods ?? [])]) {
        resource.addMethod(method, integration, {
          authorizer,
          authorizationType: AuthorizationType.CUSTOM,
          // Without a usage-plan key from the authorizer the gateway refuses the call (INVALID_API_KEY, 401).
          apiKeyRequired: true,
          operationName:
            method === route.method ? route.id : `${route.id}${method.charAt(0)}${method.slice(1).toLowerCase()}`,
        });
      }
      routeFunctions.set(route.id, fn);
    }
    this.routeFunctions = routeFunctions;
    this.webhookSealingKey = sealingKey;
    addOpenApiDocument(this, this.restApi, config);
    if (wantsWebAcl(config.edge))
      this.webAcl = new EdgeWebAcl(this, 'EdgeWebAcl', { stage: this.restApi.deploymentStage, config }).webAcl;
  }
}
