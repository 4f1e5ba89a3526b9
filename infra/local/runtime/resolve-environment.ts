/**
 * A function's environment as Lambda would hand it over, with the template's CloudFormation
 * references resolved to what stands in for them on this machine: a table's `Ref` to the local
 * table of the same spec, a secret's `Ref` to the ARN the local Secrets Manager endpoint answers
 * for, the search domain's URL to the local OpenSearch engine's, the API's execute-api host to the
 * local gateway's hosts, the webhook sealing key's public key to the one of the local webhook
 * secret key, pseudo parameters to the local region and account. A reference nothing local can stand in
 * for is an error that names the function and the variable, never a silent placeholder.
 */

import { SEALING_KEY_RESOURCE_TYPE, secretName } from '#infra/stage-names';
import { SECRET_IDS, type SecretId } from '#shared/api/route-spec';
import { allTableSpecs, physicalTableName, type TableId } from '#shared/store/table-specs';
import { deliveryQueueName } from '#shared/webhook-functions';
import { LOCAL_ACCOUNT } from '../emulators/local-identity.ts';
import type { CfnValue, Template } from './read-assembly.ts';

export interface LocalResources {
  stage: string;
  region: string;
  /** The local physical name of each table spec. */
  tables: Record<TableId, string>;
  /** The URL of the local stand-in for the queue of webhook delivery tasks. */
  webhookQueueUrl?: string;
  /** The local OpenSearch engine (`http://127.0.0.1:<port>`), standing in for the stage's search domain. */
  opensearchEndpoint?: string;
  /** The local gateway's hosts (`127.0.0.1:<port>,...`), standing in for the API's execute-api host. */
  apiHosts?: string;
  /** The public key of the local webhook secret key, standing in for the sealing key resource's answer. */
  webhookSealingKey?: string;
}

/** The ARN a stage's secret has locally (Secrets Manager ARNs end in `-` and six characters). */
export function localSecretArn(region: string, name: string): string {
  return `arn:aws:secretsmanager:${region}:${LOCAL_ACCOUNT}:secret:${name}-LOCAL0`;
}

/** Which of the stage's secrets a template secret is, by the name CDK gave it. */
export function secretIdOf(stage: string, name: unknown): SecretId | undefined {
  return SECRET_IDS.find((id) => secretName(stage, id) === name);
}

export function resolveEnvironment(
  functionName: string,
  variables: Record<string, CfnValue>,
  template: Template,
  local: LocalResources,
): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    resolved[name] = resolveValue(
      value,
      template,
      local,
      () => `${functionName}: environment variable ${name} = ${JSON.stringify(value)}`,
    );
  }
  return resolved;
}

/**
 * A template structure (an event pattern) with every reference in it resolved: an object that is a
 * reference becomes its local string, anything else keeps its shape.
 */
export function resolveStructure(value: CfnValue, template: Template, local: LocalResources, where: string): CfnValue {
  if (Array.isArray(value)) return value.map((item) => resolveStructure(item, template, local, where));
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::')))
      return resolveValue(value, template, local, () => where);
    return Object.fromEntries(keys.map((key) => [key, resolveStructure(value[key]!, template, local, where)]));
  }
  return value;
}

function resolveValue(value: CfnValue, template: Template, local: LocalResources, where: () => string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const join = value['Fn::Join'];
    const domainUrl = searchDomainUrl(join, template);
    if (domainUrl) {
      if (!local.opensearchEndpoint)
        throw new Error(`${where()}: no local OpenSearch engine runs to stand in for the search domain ${domainUrl}`);
      // The domain's URL is `https://` and its endpoint; the local engine speaks plain HTTP on loopback.
      return local.opensearchEndpoint;
    }
    if (isExecuteApiHost(join, template)) {
      if (!local.apiHosts) throw new Error(`${where()}: no local gateway's hosts were given to stand in for the API's`);
      return local.apiHosts;
    }
    if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
      return join[1].map((part) => resolveValue(part, template, local, where)).join(join[0]);
    }
    const ref = value.Ref;
    if (typeof ref === 'string') return resolveRef(ref, template, local, where);
    const getAtt = value['Fn::GetAtt'];
    if (
      Array.isArray(getAtt) &&
      typeof getAtt[0] === 'string' &&
      getAtt[1] === 'PublicKey' &&
      template.Resources[getAtt[0]]?.Type === SEALING_KEY_RESOURCE_TYPE
    ) {
      if (!local.webhookSealingKey)
        throw new Error(`${where()}: no local webhook secret key stands in for the stage's`);
      return local.webhookSealingKey;
    }
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string' && getAtt[1] === 'Arn') {
      const table = tableOf(getAtt[0], template, local);
      if (table) return `arn:aws:dynamodb:${local.region}:${LOCAL_ACCOUNT}:table/${table}`;
      // A role's ARN is only ever passed on (to Transcribe, which does not run here): a name suffices.
      if (template.Resources[getAtt[0]]?.Type === 'AWS::IAM::Role')
        return `arn:aws:iam::${LOCAL_ACCOUNT}:role/${getAtt[0]}`;
    }
  }
  throw new Error(`${where()}: the local runtime has nothing to stand in for this reference`);
}

function resolveRef(ref: string, template: Template, local: LocalResources, where: () => string): string {
  switch (ref) {
    case 'AWS::Region':
      return local.region;
    case 'AWS::AccountId':
      return LOCAL_ACCOUNT;
    case 'AWS::Partition':
      return 'aws';
    case 'AWS::URLSuffix':
      return 'amazonaws.com';
  }
  const table = tableOf(ref, template, local);
  if (table) return table;
  const resource = template.Resources[ref];
  // A bucket is named by its template (recordings-events.ts): the local S3 holds one of that name.
  if (resource?.Type === 'AWS::S3::Bucket' && resource.Properties?.BucketName !== undefined) {
    return resolveValue(resource.Properties.BucketName, template, local, where);
  }
  // The queue of webhook delivery tasks is the local stand-in's (local-queue.ts).
  if (
    resource?.Type === 'AWS::SQS::Queue' &&
    resource.Properties?.QueueName === deliveryQueueName(local.stage) &&
    local.webhookQueueUrl
  )
    return local.webhookQueueUrl;
  if (resource?.Type === 'AWS::SecretsManager::Secret') {
    const name = resource.Properties?.Name;
    if (typeof name === 'string' && secretIdOf(local.stage, name)) return localSecretArn(local.region, name);
  }
  throw new Error(
    `${where()}: the local runtime has nothing to stand in for ${resource?.Type ?? 'an unknown resource'} ${ref}`,
  );
}

/** Whether `join` is a REST API's execute-api host (`<id>.execute-api.<region>.<suffix>`). */
function isExecuteApiHost(join: unknown, template: Template): boolean {
  if (!Array.isArray(join) || join[0] !== '' || !Array.isArray(join[1])) return false;
  const [first, second] = join[1] as [unknown, unknown];
  const ref =
    first && typeof first === 'object' && !Array.isArray(first) ? (first as { Ref?: unknown }).Ref : undefined;
  return (
    typeof ref === 'string' &&
    template.Resources[ref]?.Type === 'AWS::ApiGateway::RestApi' &&
    second === '.execute-api.'
  );
}

/** The search domain's logical id, when `join` is its URL (`https://` and its DomainEndpoint). */
function searchDomainUrl(join: unknown, template: Template): string | undefined {
  if (!Array.isArray(join) || join[0] !== '' || !Array.isArray(join[1]) || join[1].length !== 2) return undefined;
  const [scheme, endpoint] = join[1] as [unknown, unknown];
  const getAtt =
    endpoint && typeof endpoint === 'object' && !Array.isArray(endpoint)
      ? (endpoint as Record<string, unknown>)['Fn::GetAtt']
      : undefined;
  if (scheme !== 'https://' || !Array.isArray(getAtt) || getAtt[1] !== 'DomainEndpoint') return undefined;
  const id = String(getAtt[0]);
  return template.Resources[id]?.Type === 'AWS::OpenSearchService::Domain' ? id : undefined;
}

/** The local table standing in for a template table: the one of the same spec. */
function tableOf(logicalId: string, template: Template, local: LocalResources): string | undefined {
  const resource = template.Resources[logicalId];
  if (resource?.Type !== 'AWS::DynamoDB::Table') return undefined;
  const name = resource.Properties?.TableName;
  const spec = allTableSpecs.find((candidate) => physicalTableName(local.stage, candidate.id) === name);
  return spec ? local.tables[spec.id] : undefined;
}
