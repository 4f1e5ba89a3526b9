/**
 * The AWS calls the local runtime recorded (infra/local/emulators/record-aws-calls.ts), as the IAM requests a
 * deployed stage would authorize, and their verdict under that stage's synthesized policies
 * (@cloud-copilot/iam-simulate): the glue of test/infra/iam-simulation.test.ts.
 *
 * A stage is read from its template with a fake account and region: every CloudFormation reference
 * of a policy resolves to the name or ARN the resource would have (a table's `Ref` to its
 * TableName, a role's ARN to `role/<logical id>`, the secret's to its name with AWS's six-character
 * suffix...). A recorded call names local resources (tables `cxm-test-*`, the local bucket, jobs
 * `cxm.local.*`, the local role ARN); each is translated to the same resource of the stage: a table
 * by its spec, the bucket, secret and Transcribe role by what they are, a job name by its stage.
 */

import { runSimulation } from '@cloud-copilot/iam-simulate';
import { TRANSCRIBE_DATA_ACCESS } from '#infra/local/emulators/local-transcribe';
import type { RecordedAwsCall } from '#infra/local/emulators/record-aws-calls';
import { LOCAL_STAGE, secretName } from '#infra/stage-names';
import { SECRET_IDS } from '#shared/api/route-spec';
import { allTableSpecs, physicalTableName, type TableId } from '#shared/store/table-specs';
import { deliveryQueueName } from '#shared/webhook-functions';
import type { CfnResource, CfnTemplate, StageTemplate } from './stage-templates.ts';

export const FAKE_ACCOUNT = '123456789012';
export const FAKE_REGION = 'eu-west-1';

/** One request IAM authorizes: what a call needs allowed. */
export interface IamRequest {
  action: string;
  resource: string;
  context: Record<string, string>;
}

export interface IdentityPolicy {
  name: string;
  policy: { Version: string; Statement: Record<string, unknown>[] };
}

/** A stage as the simulation reads it: its principals, their policies, its resources' names. */
export interface StageView {
  stage: string;
  reportingBackend: 'opensearch' | 'dynamodb';
  /** The role a recorded principal acts with (a function's, or Transcribe's data-access role), if the stage has it. */
  roleOf(principal: string): string | undefined;
  roleArn(roleId: string): string;
  identityPolicies(roleId: string): IdentityPolicy[];
  bucketName: string;
  bucketPolicy: unknown;
  /** The resource policy of the secret of ARN `arn`, if it has one. */
  secretPolicy(arn: string): unknown;
  transcribeRoleArn: string;
  /** The trust policy of Transcribe's data-access role. */
  transcribeTrustPolicy: unknown;
  /** The search domain's ARN, on an OpenSearch stage. */
  domainArn: string | undefined;
  resolve(value: unknown): unknown;
}

const TABLE_SUFFIXES = allTableSpecs
  .map((spec) => ({ id: spec.id, suffix: physicalTableName('x', spec.id).slice('cxm-x-'.length) }))
  .sort((a, b) => b.suffix.length - a.suffix.length);

/** `cxm-<any stage>-<table>` -> the table's spec id, else undefined. */
export function tableIdOf(name: string): TableId | undefined {
  return TABLE_SUFFIXES.find(({ suffix }) => name.startsWith('cxm-') && name.endsWith(`-${suffix}`))?.id;
}

/**
 * Reads a stage's template: every intrinsic of a policy resolved with the fake account and region.
 *
 * @example const view = stageView(stageTemplate('lite'));
 */
export function stageView({ config, template }: StageTemplate): StageView {
  const stage = config.stage;
  const resources = template.Resources;
  const resolve = (value: unknown): unknown => resolveIntrinsics(value, template, stage);
  const functionRole = new Map<string, string>();
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const name = String(resource.Properties?.FunctionName ?? '');
    const role = (resource.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
    if (role && name.startsWith(`cxm-${stage}-`)) functionRole.set(name.slice(`cxm-${stage}-`.length), role);
  }
  const transcribeRoleId = Object.entries(resources).find(
    ([, resource]) =>
      resource.Type === 'AWS::IAM::Role' &&
      JSON.stringify(resource.Properties?.AssumeRolePolicyDocument).includes('transcribe.amazonaws.com'),
  )?.[0];
  if (!transcribeRoleId) throw new Error(`stage ${stage} has no role Transcribe assumes`);
  const [bucketId, bucket] = only(template, 'AWS::S3::Bucket');
  const domainId = Object.entries(resources).find(
    ([, resource]) => resource.Type === 'AWS::OpenSearchService::Domain',
  )?.[0];
  const bucketPolicy = Object.values(resources).find(
    (resource) =>
      resource.Type === 'AWS::S3::BucketPolicy' &&
      JSON.stringify(resource.Properties?.Bucket) === JSON.stringify({ Ref: bucketId }),
  );
  const roleArn = (roleId: string) => `arn:aws:iam::${FAKE_ACCOUNT}:role/${roleId}`;
  return {
    stage,
    reportingBackend: config.reportingBackend,
    roleOf: (principal) => (principal === TRANSCRIBE_DATA_ACCESS ? transcribeRoleId : functionRole.get(principal)),
    roleArn,
    identityPolicies(roleId) {
      const attached = Object.entries(resources).filter(
        ([, resource]) =>
          resource.Type === 'AWS::IAM::Policy' &&
          (resource.Properties?.Roles as unknown[] | undefined)?.some(
            (role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId }),
          ),
      );
      const inline = (
        (resources[roleId]?.Properties?.Policies as { PolicyName: string; PolicyDocument: unknown }[] | undefined) ?? []
      ).map((policy) => [policy.PolicyName, policy.PolicyDocument] as const);
      return [...attached.map(([id, resource]) => [id, resource.Properties?.PolicyDocument] as const), ...inline].map(
        ([name, document]) => ({
          name,
          policy: resolve(document) as IdentityPolicy['policy'],
        }),
      );
    },
    bucketName: String(resolve(bucket.Properties?.BucketName)),
    bucketPolicy: bucketPolicy ? resolve(bucketPolicy.Properties?.PolicyDocument) : undefined,
    secretPolicy(arn) {
      const policy = Object.values(resources).find(
        (resource) =>
          resource.Type === 'AWS::SecretsManager::ResourcePolicy' && resolve(resource.Properties?.SecretId) === arn,
      );
      return policy && resolve(policy.Properties?.ResourcePolicy);
    },
    transcribeRoleArn: roleArn(transcribeRoleId),
    transcribeTrustPolicy: resolve(resources[transcribeRoleId]!.Properties?.AssumeRolePolicyDocument),
    domainArn: domainId ? String(resolve({ 'Fn::GetAtt': [domainId, 'Arn'] })) : undefined,
    resolve,
  };
}

function only(template: CfnTemplate, type: string): [string, CfnResource] {
  const found = Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0]!;
}

/** A resource's name or ARN as the fake account would have it, for `Ref` and `Fn::GetAtt ... Arn`. */
function nameOf(logicalId: string, template: CfnTemplate, stage: string, attribute: 'Ref' | 'Arn'): string {
  const resource = template.Resources[logicalId];
  if (!resource) throw new Error(`no resource ${logicalId}`);
  const props = resource.Properties ?? {};
  const resolve = (value: unknown) => String(resolveIntrinsics(value, template, stage));
  const arn = (service: string, rest: string) => `arn:aws:${service}:${FAKE_REGION}:${FAKE_ACCOUNT}:${rest}`;
  switch (resource.Type) {
    case 'AWS::DynamoDB::Table':
      return attribute === 'Ref' ? resolve(props.TableName) : arn('dynamodb', `table/${resolve(props.TableName)}`);
    case 'AWS::S3::Bucket':
      return attribute === 'Ref' ? resolve(props.BucketName) : `arn:aws:s3:::${resolve(props.BucketName)}`;
    case 'AWS::IAM::Role':
      return attribute === 'Ref' ? logicalId : `arn:aws:iam::${FAKE_ACCOUNT}:role/${logicalId}`;
    case 'AWS::SecretsManager::Secret':
      // A secret's ARN ends in a dash and six characters Secrets Manager picks.
      return arn('secretsmanager', `secret:${resolve(props.Name)}-AbCdEf`);
    case 'AWS::Lambda::Function':
      return attribute === 'Ref'
        ? resolve(props.FunctionName)
        : arn('lambda', `function:${resolve(props.FunctionName)}`);
    case 'AWS::SQS::Queue':
      return attribute === 'Ref'
        ? `https://sqs.${FAKE_REGION}.amazonaws.com/${FAKE_ACCOUNT}/${resolve(props.QueueName)}`
        : arn('sqs', resolve(props.QueueName));
    case 'AWS::OpenSearchService::Domain': {
      // CDK leaves a domain unnamed; CloudFormation names it after its logical id.
      const name = props.DomainName === undefined ? logicalId.toLowerCase().slice(0, 28) : resolve(props.DomainName);
      return attribute === 'Ref' ? name : arn('es', `domain/${name}`);
    }
    case 'AWS::Logs::LogGroup':
      return attribute === 'Ref'
        ? resolve(props.LogGroupName)
        : arn('logs', `log-group:${resolve(props.LogGroupName)}:*`);
    default:
      // Anything else is named after its logical id: unique in the template, enough to match policies.
      return attribute === 'Ref' ? logicalId : arn(resource.Type.split('::')[1]!.toLowerCase(), logicalId);
  }
}

/** A template value with every reference resolved (pseudo parameters, Ref, GetAtt Arn / StreamArn, Join, Split/Select). */
export function resolveIntrinsics(value: unknown, template: CfnTemplate, stage: string): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveIntrinsics(item, template, stage));
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [key, argument] = entries[0]!;
    if (key === 'Ref') {
      const pseudo: Record<string, string> = {
        'AWS::AccountId': FAKE_ACCOUNT,
        'AWS::Region': FAKE_REGION,
        'AWS::Partition': 'aws',
        'AWS::URLSuffix': 'amazonaws.com',
      };
      return pseudo[String(argument)] ?? nameOf(String(argument), template, stage, 'Ref');
    }
    if (key === 'Fn::GetAtt') {
      const [logicalId, attribute] = argument as [string, string];
      if (attribute === 'Arn') return nameOf(logicalId, template, stage, 'Arn');
      if (attribute === 'StreamArn') return `${nameOf(logicalId, template, stage, 'Arn')}/stream/*`;
      if (attribute === 'DomainEndpoint')
        return `search-${nameOf(logicalId, template, stage, 'Ref')}.${FAKE_REGION}.es.amazonaws.com`;
      throw new Error(`no fake value for Fn::GetAtt ${logicalId}.${attribute}`);
    }
    if (key === 'Fn::Join') {
      const [separator, parts] = argument as [string, unknown[]];
      return parts.map((part) => String(resolveIntrinsics(part, template, stage))).join(separator);
    }
  }
  return Object.fromEntries(entries.map(([key, member]) => [key, resolveIntrinsics(member, template, stage)]));
}

/** `s3://bucket/rest` or a bucket name of the local stack -> the stage's. */
const LOCAL_BUCKET = /^cxm-[a-z0-9-]+-recordings-\d{12}-[a-z0-9-]+$/;
const JOB_NAME = /^cxm\.[a-z0-9-]+\./;

/**
 * The IAM requests a recorded call needs allowed on `view`'s stage, its local names translated.
 *
 * @example iamRequests({ principal: 'authorizer', service: 'DynamoDB', operation: 'GetItem', input: { TableName: 'cxm-test-keys' } }, view)
 */
export function iamRequests(call: RecordedAwsCall, view: StageView): IamRequest[] {
  const arn = (service: string, rest: string) => `arn:aws:${service}:${FAKE_REGION}:${FAKE_ACCOUNT}:${rest}`;
  const table = (name: unknown) => {
    const id = tableIdOf(String(name));
    if (!id) throw new Error(`the call names table ${String(name)}, which is no table of the specs`);
    return arn('dynamodb', `table/${physicalTableName(view.stage, id)}`);
  };
  const bucket = (name: unknown) => {
    if (!LOCAL_BUCKET.test(String(name)))
      throw new Error(`the call names bucket ${String(name)}, which is not the recordings bucket`);
    return view.bucketName;
  };
  const job = (name: unknown) => String(name).replace(JOB_NAME, `cxm.${view.stage}.`);
  const input = call.input;
  const secure = { 'aws:SecureTransport': 'true' };

  if (call.signed) {
    if (call.service === 's3') {
      const [, bucketName, ...key] = call.signed.path.split('/');
      const action =
        call.signed.method === 'PUT' ? 's3:PutObject' : call.signed.method === 'GET' ? 's3:GetObject' : undefined;
      if (!action) throw new Error(`a signed S3 ${call.signed.method} has no action here`);
      // The signed conditional headers are S3's condition keys (`s3:if-none-match`).
      const conditions = Object.fromEntries(
        Object.entries(call.signed.conditions ?? {}).map(([name, value]) => [`s3:${name}`, value]),
      );
      return [
        {
          action,
          resource: `arn:aws:s3:::${bucket(bucketName)}/${key.map(decodeURIComponent).join('/')}`,
          context: { ...secure, ...conditions },
        },
      ];
    }
    if (call.service === 'es') {
      if (!view.domainArn)
        throw new Error(`stage ${view.stage} has no search domain for a search of ${call.principal}`);
      const method = call.signed.method.charAt(0) + call.signed.method.slice(1).toLowerCase();
      // The stage's index prefix in place of the local one, wherever the path names it: an index or
      // alias (`/cxm-<stage>-reporting-assistant-read/_search`), a template
      // (`/_index_template/cxm-<stage>-reporting-voc`).
      const path = call.signed.path.replace(/cxm-[a-z0-9-]+?-reporting(?=-)/g, `cxm-${view.stage}-reporting`);
      return [{ action: `es:ESHttp${method}`, resource: `${view.domainArn}${path}`, context: {} }];
    }
    throw new Error(`a request signed for ${call.service} has no mapping here`);
  }

  switch (call.service) {
    case 'DynamoDB': {
      const op = call.operation;
      if (op === 'TransactWriteItems' || op === 'TransactGetItems') {
        const actions: Record<string, string> = {
          Put: 'PutItem',
          Update: 'UpdateItem',
          Delete: 'DeleteItem',
          ConditionCheck: 'ConditionCheckItem',
          Get: 'GetItem',
        };
        return (input.TransactItems as { operation: string; TableName: string }[]).map((item) => ({
          action: `dynamodb:${actions[item.operation]}`,
          resource: table(item.TableName),
          context: {},
        }));
      }
      if (op === 'BatchWriteItem' || op === 'BatchGetItem')
        return (input.RequestItems as string[]).map((name) => ({
          action: `dynamodb:${op}`,
          resource: table(name),
          context: {},
        }));
      const resource = input.IndexName
        ? `${table(input.TableName)}/index/${String(input.IndexName)}`
        : table(input.TableName);
      return [{ action: `dynamodb:${op}`, resource, context: {} }];
    }
    case 'S3': {
      const object = `arn:aws:s3:::${bucket(input.Bucket)}/${String(input.Key)}`;
      const actions: Record<string, [string, string]> = {
        GetObject: ['s3:GetObject', object],
        HeadObject: ['s3:GetObject', object],
        PutObject: ['s3:PutObject', object],
        ListObjectsV2: ['s3:ListBucket', `arn:aws:s3:::${bucket(input.Bucket)}`],
      };
      const [action, resource] = actions[call.operation] ?? [];
      if (!action || !resource) throw new Error(`S3 ${call.operation} has no mapping here`);
      return [{ action, resource, context: secure }];
    }
    case 'Secrets Manager': {
      const id = SECRET_IDS.find((candidate) =>
        String(input.SecretId).includes(secretName('x', candidate).slice('cxm-x-'.length)),
      );
      if (!id) throw new Error(`the call names secret ${String(input.SecretId)}, which is no secret of the stage`);
      return [
        {
          action: `secretsmanager:${call.operation}`,
          resource: arn('secretsmanager', `secret:${secretName(view.stage, id)}-AbCdEf`),
          context: {},
        },
      ];
    }
    case 'Transcribe': {
      const passRole = {
        action: 'iam:PassRole',
        resource: view.transcribeRoleArn,
        context: { 'iam:PassedToService': 'transcribe.amazonaws.com' },
      };
      const output = (location: unknown) => String(location).replace(/^s3:\/\/[^/]+/, `s3://${view.bucketName}`);
      switch (call.operation) {
        case 'StartCallAnalyticsJob':
          return [
            {
              action: 'transcribe:StartCallAnalyticsJob',
              resource: '*',
              context: { 'transcribe:OutputLocation': output(input.OutputLocation) },
            },
            passRole,
          ];
        case 'StartTranscriptionJob':
          return [
            {
              action: 'transcribe:StartTranscriptionJob',
              resource: '*',
              context: {
                'transcribe:OutputBucketName': bucket(input.OutputBucketName),
                'transcribe:OutputKey': String(input.OutputKey),
              },
            },
            passRole,
          ];
        case 'GetCallAnalyticsJob':
          return [
            {
              action: 'transcribe:GetCallAnalyticsJob',
              resource: arn('transcribe', `analytics/${job(input.CallAnalyticsJobName)}`),
              context: {},
            },
          ];
        case 'GetTranscriptionJob':
          return [
            {
              action: 'transcribe:GetTranscriptionJob',
              resource: arn('transcribe', `transcription-job/${job(input.TranscriptionJobName)}`),
              context: {},
            },
          ];
      }
      throw new Error(`Transcribe ${call.operation} has no mapping here`);
    }
    case 'SQS': {
      // The queue's name is the URL's last segment; the stage's is the same name (webhook-functions.ts).
      const name = String(input.QueueUrl).split('/').at(-1) ?? '';
      if (name !== deliveryQueueName(LOCAL_STAGE))
        throw new Error(`the call names queue ${String(input.QueueUrl)}, which is not the webhook delivery queue`);
      const queue = arn('sqs', deliveryQueueName(view.stage));
      if (call.operation === 'SendMessage' || call.operation === 'SendMessageBatch')
        return [{ action: 'sqs:SendMessage', resource: queue, context: secure }];
      throw new Error(`SQS ${call.operation} has no mapping here`);
    }
  }
  throw new Error(`${call.service} ${call.operation} has no mapping here`);
}

export type Verdict = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied' | 'error';

/**
 * The verdict of IAM on `request` made by `roleId` on `view`'s stage: its identity policies, and
 * the resource's own policy for a request on the bucket or on a secret that has one.
 *
 * @example await simulate(view, roleId, { action: 's3:PutObject', resource: 'arn:aws:s3:::b/recordings/x', context: {} })
 */
export function simulate(
  view: StageView,
  roleId: string,
  request: IamRequest,
): Promise<{ verdict: Verdict; detail: string }> {
  return simulateAs(
    view,
    { principal: view.roleArn(roleId), identityPolicies: view.identityPolicies(roleId) },
    request,
  );
}

/**
 * The same for a principal the stage does not define (an operator's role, say), with the identity
 * policies given.
 *
 * @example await simulateAs(view, { principal: 'arn:aws:iam::123456789012:role/admin', identityPolicies }, request)
 */
export async function simulateAs(
  view: StageView,
  { principal, identityPolicies }: { principal: string; identityPolicies: IdentityPolicy[] },
  request: IamRequest,
): Promise<{ verdict: Verdict; detail: string }> {
  const resourcePolicy = request.resource.startsWith(`arn:aws:s3:::${view.bucketName}`)
    ? view.bucketPolicy
    : request.resource.startsWith('arn:aws:secretsmanager:')
      ? view.secretPolicy(request.resource)
      : undefined;
  return verdictOf(
    await runSimulation(
      {
        request: {
          principal,
          action: request.action,
          resource: { resource: request.resource, accountId: FAKE_ACCOUNT },
          // IAM sets the principal's ARN on every request; the simulation does not on its own.
          contextVariables: { 'aws:PrincipalArn': principal, ...request.context },
        },
        identityPolicies,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy !== undefined && { resourcePolicy }),
      },
      {},
    ),
  );
}

/**
 * Whether Transcribe may assume the stage's data-access role for a job of ARN `sourceArn` (the
 * confused-deputy conditions of its trust policy).
 *
 * @example await simulateTranscribeAssumingRole(view, 'arn:aws:transcribe:eu-west-1:123456789012:analytics/cxm.lite.x')
 */
export async function simulateTranscribeAssumingRole(
  view: StageView,
  sourceArn: string,
  sourceAccount = FAKE_ACCOUNT,
): Promise<{ verdict: Verdict; detail: string }> {
  return verdictOf(
    await runSimulation(
      {
        request: {
          principal: 'transcribe.amazonaws.com',
          action: 'sts:AssumeRole',
          resource: { resource: view.transcribeRoleArn, accountId: FAKE_ACCOUNT },
          contextVariables: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': sourceAccount },
        },
        identityPolicies: [],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        resourcePolicy: view.transcribeTrustPolicy,
      },
      {},
    ),
  );
}

function verdictOf(result: Awaited<ReturnType<typeof runSimulation>>): { verdict: Verdict; detail: string } {
  if (result.resultType === 'error') return { verdict: 'error', detail: JSON.stringify(result.errors) };
  const ignored = result.resultType === 'single' ? (result.result.ignoredContextKeys ?? []) : [];
  if (ignored.length > 0)
    return { verdict: 'error', detail: `context keys the action does not take: ${ignored.join(', ')}` };
  return { verdict: result.overallResult as Verdict, detail: '' };
}

/** Whether an IAM pattern (`*` and `?` wildcards) matches a value, case-sensitively as resources are. */
export function iamMatch(pattern: string, value: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );
  return regex.test(value);
}

/** Every (action, resource) an identity policy allows, each with the statement it comes from. */
export function grants(policies: IdentityPolicy[]): { action: string; resource: string; conditional: boolean }[] {
  return policies.flatMap(({ policy }) =>
    policy.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) =>
      [statement.Action].flat().flatMap((action) =>
        [statement.Resource].flat().map((resource) => ({
          action: String(action),
          resource: String(resource),
          conditional: statement.Condition !== undefined,
        })),
      ),
    ),
  );
}
