/**
 * cdk-nag (AwsSolutions pack) at synth, and every finding this stack accepts instead of fixing.
 *
 * app.ts calls `enforceNagChecks`: the pack runs as a CDK validation plugin, so `cdk synth` and
 * `cdk deploy` fail on any finding, error or warning, that is not acknowledged here. Fix a finding in
 * its construct when the fix is right for a production API (the functions' roles, for one, write
 * only to their own log group instead of carrying AWSLambdaBasicExecutionRole); acknowledge it here
 * only when the design decides otherwise, and say which decision and why.
 *
 * An acknowledgement is as narrow as cdk-nag v3 allows: one rule, or one finding of a rule that
 * reports several per resource (`AwsSolutions-IAM5[Resource::<arn>/index/*]`), at the construct
 * that causes it; it covers that construct and its children, nothing beside them. cdk-nag v3 has
 * no prefix match, so `AwsSolutions-IAM5` alone would silence nothing.
 *
 * To add one: run `npx vitest run --config test/vitest.config.ts test/infra/nag.test.ts`, which
 * lists every unacknowledged finding with its rule, construct path and description; write (or
 * reuse) a rationale below, and acknowledge at the construct the path names. The same test fails on
 * an acknowledgement that matches no finding, so stale ones do not pile up.
 */
import { type CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { AuthorizationType, type CfnMethod } from 'aws-cdk-lib/aws-apigateway';
import type { CfnDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { AwsCustomResource } from 'aws-cdk-lib/custom-resources';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { RouteSpec } from '#shared/api/route-spec';
import { routes } from '#shared/api/route-table';
import { OPENAPI_DOCUMENT_PATH } from '#shared/openapi/build-openapi-document';
import { ApiFunction } from './constructs/api-function.ts';
import type { CxmStack } from './stack.ts';

/**
 * Where a decision is written: a section of one of the repository's READMEs (`<file>#<heading
 * anchor>`), or the infra module whose doc comment records it.
 */
export type DecisionRef =
  | `${'functions' | 'infra' | 'shared' | 'test'}/${string}README.md#${string}`
  | `infra/${string}.ts`;

export interface Rationale {
  readonly decision: DecisionRef;
  /** Why the finding is right for this API, in terms a reviewer can check against the decision. */
  readonly reason: string;
}

/** A rule id as cdk-nag reports it: `AwsSolutions-APIG2`, or with one finding, `AwsSolutions-IAM5[...]`. */
export type NagFindingId = `AwsSolutions-${string}`;

export interface NagAcknowledgement extends Rationale {
  /** The construct whose resources raise the finding; the acknowledgement covers it and its children. */
  readonly scope: IConstruct;
  readonly id: NagFindingId;
}

/**
 * The only actions a function's role may hold on `*`: AWS has no resource-level permission for them.
 * test/infra/nag.test.ts checks that no other action is granted on `*`, which is what makes the
 * `Resource::*` acknowledgement on every function safe.
 */
export const ACTIONS_WITHOUT_RESOURCE_SCOPE: readonly string[] = [
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
  'dynamodb:ListStreams',
  // The recording processor; held to this stage's bucket's analysis prefix by the condition keys
  // each action supports (infra/cdk/constructs/recordings.ts).
  'transcribe:StartCallAnalyticsJob',
  'transcribe:StartTranscriptionJob',
];

/**
 * Methods the API serves without a tenant key (`<METHOD> <path>`), each with why. Any other method
 * without the authorizer stays a finding (APIG4), so nothing becomes public unnoticed.
 */
const PUBLIC_METHODS: Readonly<Record<string, Rationale>> = {
  [`GET ${OPENAPI_DOCUMENT_PATH}`]: {
    decision: 'functions/README.md#reference-openapijson-and-docs',
    reason:
      'The OpenAPI document describes the public contract (paths, schemas, error bodies) and holds no tenant data or secret; callers and their tooling read it before they have a key, and the local gateway serves it without auth the same way.',
  },
};

const because = {
  unscopableActions: {
    decision: 'infra/cdk/constructs/api-function.ts',
    reason: `Every function traces with active X-Ray, and the stream indexer lists its stream; ${ACTIONS_WITHOUT_RESOURCE_SCOPE.join(', ')} have no resource-level permissions, so they can only be granted on "*". No other action is granted on "*" (test/infra/nag.test.ts checks it).`,
  },
  tenantKeyAuthorizer: {
    decision: 'functions/README.md#decisions-a-user-must-know',
    reason:
      'Callers are trusted server-side systems that authenticate with tenant API keys; the Lambda REQUEST authorizer checks the key (hash, expiry, revocation) and hands its tenants and scopes to the function. There are no end users, hence no Cognito user pool to authorize against.',
  },
  validationInFunction: {
    decision: 'functions/README.md#decisions-a-user-must-know',
    reason:
      "Requests are validated in the function (middy chain, ajv against the route's JSON Schema) after authorization, because the identifier rules fix the order 401 -> 403 -> 400 -> 413 and the error bodies want 400 messages that name the field. An API Gateway request validator would answer 400 before the tenant check could answer 403, in its own words.",
  },
  noWebAcl: {
    decision: 'infra/cdk/stage/config.ts',
    reason:
      'This stage was configured without a web ACL (every edge.waf* setting off; every listed stage has one). What still limits requests before the authorizer answers: the stage throttle of each method and the reserved concurrency of the authorizer and the document function. The usage plan throttles per tenant only after the authorizer has accepted a key, so it does not limit a flood of invalid tokens.',
  },
  accessLogsNotExecutionLogs: {
    decision: 'infra/cdk/constructs/access-logs.ts',
    reason:
      "Every request is logged once, as a JSON access log line in a log group the stack owns (retention per stage), with the gateway's own error message, the authorizer error and latencies; functions log through Powertools and trace with X-Ray. Execution logs would go to a group API Gateway creates outside the stack, kept forever, and at INFO they record request details.",
  },
  cursorSecretNotRotated: {
    decision: 'infra/README.md#operating-a-stage',
    reason:
      'The secret is the HMAC key of reporting list cursors, which live 24 hours and carry no data beyond the window and position they sign. Each cursor names its key and the lists accept the AWSCURRENT and AWSPREVIOUS versions, so a rotation breaks no open cursor; a second rotation within 24 hours would. An operator rotates it by hand (put-secret-value, infra/README.md "Rotating the cursor secret") when it may have leaked, at most once a day; a scheduled rotation needs a rotation Lambda for a value nothing else derives.',
  },
  keyTagSecretNotRotated: {
    decision: 'infra/README.md#operating-a-stage',
    reason:
      'The secret is the HMAC key of API key tags, which only spare the authorizer a read for a made-up key; the key itself is the credential (its SHA-256 is what the authorizer looks up). The authorizer accepts the AWSCURRENT and AWSPREVIOUS versions, so one rotation breaks no key, but a second drops every key tagged before the first: a rotation means reissuing the stage\'s keys. An operator rotates it by hand (put-secret-value, infra/README.md "Rotating the key-tag secret") only when it may have leaked; a scheduled rotation would break tenants\' keys.',
  },
  webhookSecretKeyNotRotated: {
    decision: 'infra/README.md#operating-a-stage',
    reason:
      "The secret's key pair seals tenants' webhook signing secrets at rest. It rotates at a deploy, when the stage's webhooks.secretKeyGeneration is raised: the sealing key resource puts a new value and gives the registration and the rotation its public key. The delivery opens what the AWSCURRENT and AWSPREVIOUS versions sealed, so one rotation breaks no delivery, but a second makes every secret still sealed to the first unopenable until its endpoint's secret is rotated: an operator rotates it only when it may have leaked (infra/README.md), and a scheduled rotation would need a re-sealing of every endpoint.",
  },
  sealingKeyProvider: {
    decision: 'infra/cdk/constructs/webhook-sealing-key.ts',
    reason:
      "This is the role of CDK's custom resource provider framework, which invokes the webhook sealing key's function (and its versions: `:*`) during deployments only; CDK grants lambda:InvokeFunction on the function's ARN and its qualified ARNs.",
  },
  signedRequestsOnly: {
    decision: 'infra/README.md#choosing-the-reporting-backend',
    reason:
      "The domain answers only SigV4-signed requests of IAM principals granted here (the reporting functions on _search, the indexer on its indexes); the client signs with the function's role. A VPC would move every reporting Lambda into it (ENIs, NAT or endpoints for DynamoDB and Secrets Manager) without adding a boundary IAM does not already draw.",
  },
  noIpAllowList: {
    decision: 'infra/README.md#choosing-the-reporting-backend',
    reason:
      'The callers are Lambda functions, which have no fixed source addresses; access is granted per IAM role and index path (SigV4 signed requests), which an IP allow list could not express.',
  },
  noDomainPolicy: {
    decision: 'infra/README.md#choosing-the-reporting-backend',
    reason:
      'The domain has no resource-based access policy at all, so there is no "*" principal and no anonymous or cross-account access: only requests signed by this account\'s principals whose identity policies allow es:ESHttp* on the path get through. An account-wide policy would only add a custom resource.',
  },
  derivedIndex: {
    decision: 'infra/README.md#choosing-the-reporting-backend',
    reason:
      "The domain is a derived copy of the reporting table (the table's stream feeds the indexer), so losing it loses no data: it is rebuilt by replaying the table. Sized per stage in infra/cdk/stage/config.ts; dedicated cluster-manager nodes would more than double the node count of these 1-3 node domains.",
  },
  singleZoneDevDomain: {
    decision: 'infra/README.md#choosing-the-reporting-backend',
    reason:
      'This stage runs its domain on one data node in one zone on purpose (infra/cdk/stage/config.ts): it is a derived copy of the reporting table, rebuilt by replaying it, and stages with several data nodes spread them over zones.',
  },
  domainLogPolicy: {
    decision: 'infra/cdk/constructs/search.ts',
    reason:
      'CDK\'s custom resource that lets OpenSearch publish its slow and error logs to CloudWatch writes a CloudWatch Logs resource policy; logs:PutResourcePolicy and logs:DeleteResourcePolicy have no resource-level permissions, so CDK grants them on "*".',
  },
  customResourceProvider: {
    decision: 'infra/cdk/constructs/search.ts',
    reason:
      "This is the function behind CDK's AwsCustomResource (here the search domain's log resource policy); CDK creates its role with AWSLambdaBasicExecutionRole and offers no way to replace it, and it runs only during deployments.",
  },
  webhookFanOutDlq: {
    decision: 'infra/cdk/constructs/webhooks.ts',
    reason:
      "This queue is the dead-letter queue itself: the webhooks' fan-out sends the stream records that still fail after its retries here (its stream mappings' onFailure). cdk-nag only recognizes queues named in a redrive policy; a dead-letter queue for the dead-letter queue would only move failures further away.",
  },
  dlqIsTheDlq: {
    decision: 'infra/cdk/constructs/indexer.ts',
    reason:
      "This queue is the dead-letter queue itself: the indexer's stream mapping sends records that still fail after retries here (onFailure). cdk-nag only recognizes queues named in a redrive policy; a dead-letter queue for the dead-letter queue would only move failures further away.",
  },
  searchIndexPaths: {
    decision: 'infra/README.md#choosing-the-reporting-backend',
    reason:
      "A reporting list function may only search (POST _search) this stage's reporting indexes, through their read aliases `<stage prefix>-assistant-read` and `<stage prefix>-voc-read` (one index per kind and year behind each); the wildcard spans the stage's own index prefix, nothing else of the domain.",
  },
  recordingObjects: {
    decision: 'infra/cdk/constructs/recordings.ts',
    reason:
      "Recording objects are created per job at run time (`recordings/<tenant>/<job>.<ext>`, analysis output under `analysis/<tenant>/<job>/`): the upload function may only put (and so presign) objects under `recordings/`, the processor only read `recordings/` and `analysis/`, Transcribe's role only read `recordings/` and write `analysis/` (and list the bucket, as AWS's example data-access role does). No delete or other prefix.",
  },
  stageAnalysisJobs: {
    decision: 'infra/cdk/constructs/recordings.ts',
    reason:
      'Transcribe jobs (Call Analytics for two-channel calls, transcription jobs for mono ones) are named per VOC job at run time; the processor may read only jobs whose names carry this stage\'s prefix (`cxm.<stage>.`). Starting one has no resource type, so it is granted on "*" with conditions holding its output to this bucket\'s `analysis/` prefix.',
  },
  recordingDlq: {
    decision: 'infra/cdk/constructs/recordings.ts',
    reason:
      "This queue is the dead-letter queue itself: events the processor failed on after Lambda's retries (its on-failure destination) and events EventBridge could not deliver land here, with an alarm on its depth. A queue behind it would only move failures further away.",
  },
  noBucketAccessLogs: {
    decision: 'infra/cdk/constructs/recordings.ts',
    reason:
      'Objects are only written through presigned URLs the API issues per job and read by the processor and Transcribe; every upload is an event the processor logs with its tenant and job. S3 server access logs would need a second bucket and duplicate that trail; CloudTrail data events can be turned on for the bucket where an audit requires it.',
  },
} as const satisfies Record<string, Rationale>;

/** Every acknowledgement for this stack, at the constructs that cause the findings. */
export function nagAcknowledgements(stack: CxmStack): NagAcknowledgement[] {
  const acknowledgements: NagAcknowledgement[] = [];
  const acknowledge = (scope: IConstruct, id: NagFindingId, rationale: Rationale) =>
    acknowledgements.push({ scope, id, ...rationale });

  // Functions: every ApiFunction in the stack, whichever construct made it.
  for (const fn of stack.node.findAll().filter((node): node is ApiFunction => node instanceof ApiFunction)) {
    // No AwsSolutions-L1 acknowledgement: the functions run the latest runtime, nodejs24.x.
    if (!fn.role) throw new Error(`${fn.node.path} has no role`);
    acknowledge(fn.role, 'AwsSolutions-IAM5[Resource::*]', because.unscopableActions);
  }

  // The API.
  const { restApi } = stack.api;
  acknowledge(restApi, 'AwsSolutions-APIG2', because.validationInFunction);
  if (!stack.api.webAcl) acknowledge(restApi.deploymentStage, 'AwsSolutions-APIG3', because.noWebAcl);
  acknowledge(restApi.deploymentStage, 'AwsSolutions-APIG6', because.accessLogsNotExecutionLogs);
  for (const method of restApi.methods) {
    const authorizationType = (method.node.defaultChild as CfnMethod).authorizationType;
    if (authorizationType === AuthorizationType.CUSTOM) {
      acknowledge(method, 'AwsSolutions-COG4', because.tenantKeyAuthorizer);
      continue;
    }
    const publicMethod = PUBLIC_METHODS[`${method.httpMethod} ${method.resource.path}`];
    if (publicMethod) {
      acknowledge(method, 'AwsSolutions-APIG4', publicMethod);
      acknowledge(method, 'AwsSolutions-COG4', publicMethod);
    }
  }
  acknowledge(child(stack.api, 'CursorSecret'), 'AwsSolutions-SMG4', because.cursorSecretNotRotated);
  acknowledge(child(stack.api, 'KeyTagSecret'), 'AwsSolutions-SMG4', because.keyTagSecretNotRotated);
  acknowledge(child(stack.api, 'WebhookSecretKey'), 'AwsSolutions-SMG4', because.webhookSecretKeyNotRotated);
  const sealingKey = stack.api.webhookSealingKey;
  if (sealingKey)
    acknowledge(
      child(sealingKey, 'ProviderRole'),
      `AwsSolutions-IAM5[Resource::${arnToken(sealingKey.function.node.defaultChild as CfnResource)}:*]`,
      because.sealingKeyProvider,
    );

  // Reporting search, on stages that have a domain.
  const { search, indexer } = stack;
  if (search) {
    const domain = search.domain;
    acknowledge(domain, 'AwsSolutions-OS1', because.signedRequestsOnly);
    acknowledge(domain, 'AwsSolutions-OS3', because.noIpAllowList);
    acknowledge(domain, 'AwsSolutions-OS5', because.noDomainPolicy);
    acknowledge(domain, 'AwsSolutions-OS4', because.derivedIndex);
    // Only a domain in one zone raises OS7; a zone-aware stage must not carry the acknowledgement.
    const cluster: unknown = Stack.of(domain).resolve((domain.node.defaultChild as CfnDomain).clusterConfig);
    if ((cluster as { zoneAwarenessEnabled?: unknown } | undefined)?.zoneAwarenessEnabled !== true) {
      acknowledge(domain, 'AwsSolutions-OS7', because.singleZoneDevDomain);
    }
    const logPolicy = domain.node.children.find((node) => node.node.id.startsWith('ESLogGroupPolicy'));
    if (!logPolicy)
      throw new Error(
        `${domain.node.path}: no ESLogGroupPolicy custom resource (see infra/cdk/nag-acknowledgements.ts)`,
      );
    acknowledge(logPolicy, 'AwsSolutions-IAM5[Resource::*]', because.domainLogPolicy);
    acknowledge(
      child(stack, `AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replaceAll('-', '')}`),
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      because.customResourceProvider,
    );

    const domainArn = arnToken(domain.node.defaultChild as CfnResource);
    const routeSpecs: readonly RouteSpec[] = routes;
    for (const route of routeSpecs.filter((spec) => spec.reportingIndex)) {
      const role = stack.api.routeFunctions.get(route.id)?.role;
      if (!role) throw new Error(`no function with a role for route ${route.id}`);
      acknowledge(
        role,
        `AwsSolutions-IAM5[Resource::${domainArn}/${search.indexPrefix}-*/_search]`,
        because.searchIndexPaths,
      );
    }
    if (indexer) acknowledge(indexer.deadLetterQueue, 'AwsSolutions-SQS3', because.dlqIsTheDlq);
  }

  // VOC recordings.
  const { recordings } = stack;
  const bucketArn = arnToken(recordings.bucket.node.defaultChild as CfnResource);
  acknowledge(recordings.bucket, 'AwsSolutions-S1', because.noBucketAccessLogs);
  acknowledge(recordings.deadLetterQueue, 'AwsSolutions-SQS3', because.recordingDlq);
  const upload = stack.api.routeFunctions.get('createRecording')?.role;
  if (!upload || !recordings.processor.role) throw new Error('the recording functions have no roles');
  acknowledge(upload, `AwsSolutions-IAM5[Resource::${bucketArn}/recordings/*]`, because.recordingObjects);
  for (const role of [recordings.processor.role, recordings.transcribeRole]) {
    acknowledge(role, `AwsSolutions-IAM5[Resource::${bucketArn}/recordings/*]`, because.recordingObjects);
    acknowledge(role, `AwsSolutions-IAM5[Resource::${bucketArn}/analysis/*]`, because.recordingObjects);
  }
  for (const jobs of ['analytics', 'transcription-job']) {
    acknowledge(
      recordings.processor.role,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:transcribe:<AWS::Region>:<AWS::AccountId>:${jobs}/cxm.${recordings.stage}.*]`,
      because.stageAnalysisJobs,
    );
  }

  // Tenant webhooks: the delivery queue's own dead-letter queue is named in its redrive policy.
  acknowledge(stack.webhooks.fanOutDeadLetters, 'AwsSolutions-SQS3', because.webhookFanOutDlq);

  return acknowledgements;
}

/** Records the acknowledgements on their constructs, where cdk-nag (and the cloud assembly) read them. */
export function applyNagAcknowledgements(acknowledgements: readonly NagAcknowledgement[]): void {
  for (const { scope, id, decision, reason } of acknowledgements) {
    Validations.of(scope).acknowledge({ id, reason: `${decision}: ${reason}` });
  }
}

/**
 * What app.ts does: acknowledge, then register the AwsSolutions pack on the app, which runs it when
 * the app synthesizes and fails the synthesis on any unacknowledged finding.
 */
export function enforceNagChecks(
  stack: CxmStack,
  acknowledgements: readonly NagAcknowledgement[] = nagAcknowledgements(stack),
): void {
  applyNagAcknowledgements(acknowledgements);
  Validations.of(stack).addPlugins(new AwsSolutionsChecks());
}

/** How cdk-nag writes a resource's `Fn::GetAtt [id, Arn]` inside a finding. */
function arnToken(resource: CfnResource): string {
  return `<${Stack.of(resource).getLogicalId(resource)}.Arn>`;
}

function child(scope: IConstruct, id: string): IConstruct {
  const found = scope.node.tryFindChild(id);
  if (!found) throw new Error(`${scope.node.path} has no child ${id}: update infra/cdk/nag-acknowledgements.ts`);
  return found;
}
