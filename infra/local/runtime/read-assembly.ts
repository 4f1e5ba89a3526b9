/**
 * What bundle mode needs from a synthesized stack, read from its cloud assembly as CloudFormation
 * and Lambda would read it: each function's Handler, Runtime, MemorySize, Timeout, Environment
 * (still with its CloudFormation references) and code directory; each API method's path (from the
 * resource tree), HTTP method, authorization and the function its integration invokes; and the
 * REQUEST authorizer. Nothing here comes from the route table: a wiring mistake in CDK shows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type CfnValue = string | number | boolean | null | CfnValue[] | { [key: string]: CfnValue };

interface CfnResource {
  Type: string;
  Properties?: Record<string, CfnValue>;
  Metadata?: Record<string, CfnValue>;
}

export interface Template {
  Resources: Record<string, CfnResource>;
}

export interface AssemblyFunction {
  functionName: string;
  handler: string;
  runtime: string;
  memoryMb: number;
  timeoutSeconds: number;
  /** Template values, CloudFormation references unresolved. */
  environment: Record<string, CfnValue>;
  /** The bundle's directory in the assembly (the task root). */
  codeDir: string;
}

export interface AssemblyMethod {
  httpMethod: string;
  /** `/api/v1/...` with `{param}` segments, from the resource tree. */
  path: string;
  authorizationType: string;
  /** The logical id of the authorizer, for CUSTOM methods. */
  authorizerId?: string;
  /** The logical id of the function the AWS_PROXY integration invokes. */
  functionId: string;
}

export interface AssemblyAuthorizer {
  type: string;
  identitySource: string;
  ttlSeconds: number;
  functionId: string;
}

/** An EventBridge rule of the stack: its pattern (references unresolved) and the functions it targets. */
/** A rule of the template: on an event pattern, or on a schedule (`rate(5 minutes)`, in ms). */
/**
 * A Lambda event source mapping of the template: the function, what it reads (a table's stream or
 * a queue, by logical id) and its filters (EventBridge patterns).
 */
export interface AssemblyMapping {
  functionId: string;
  source: { kind: 'stream' | 'queue'; logicalId: string };
  patterns: Record<string, unknown>[];
  /** BatchSize, when the template sets it. */
  batchSize?: number;
  /** ParallelizationFactor, when the template sets it (a stream's). */
  parallelization?: number;
  /** MaximumRetryAttempts: absent or -1 is Lambda's default, every retry until the record's age limit. */
  retryAttempts: number;
  /** MaximumRecordAgeInSeconds, in ms: absent or -1 is the stream's retention. */
  maxRecordAgeMs?: number;
}

export type AssemblyRule =
  | { pattern: CfnValue; functionIds: string[] }
  | { ruleName: string; everyMs: number; functionIds: string[] };

/** `rate(<n> <unit>)` of EventBridge -> milliseconds; undefined for anything else (cron). */
export function rateMs(expression: unknown): number | undefined {
  const match =
    typeof expression === 'string' ? /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression) : null;
  if (!match) return undefined;
  const unit = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[
    match[2]!.replace(/s$/, '') as 'minute' | 'hour' | 'day'
  ];
  return Number(match[1]) * unit;
}

export interface StackAssembly {
  template: Template;
  rules: AssemblyRule[];
  mappings: AssemblyMapping[];
  functions: Map<string, AssemblyFunction>;
  methods: AssemblyMethod[];
  authorizers: Map<string, AssemblyAuthorizer>;
}

interface Manifest {
  artifacts?: Record<string, { type?: string; properties?: { templateFile?: string } }>;
}

export function readStackAssembly(assemblyDir: string, stackId: string): StackAssembly {
  const manifest = JSON.parse(readFileSync(join(assemblyDir, 'manifest.json'), 'utf8')) as Manifest;
  const templateFile = manifest.artifacts?.[stackId]?.properties?.templateFile;
  if (!templateFile) throw new Error(`the cloud assembly ${assemblyDir} has no stack ${stackId}`);
  const template = JSON.parse(readFileSync(join(assemblyDir, templateFile), 'utf8')) as Template;
  return parseStack(template, assemblyDir);
}

function parseStack(template: Template, assemblyDir: string): StackAssembly {
  const resources = template.Resources;
  const functions = new Map<string, AssemblyFunction>();
  const methods: AssemblyMethod[] = [];
  const authorizers = new Map<string, AssemblyAuthorizer>();
  const rules: AssemblyRule[] = [];
  const mappings: AssemblyMapping[] = [];
  for (const [logicalId, resource] of Object.entries(resources)) {
    const props = resource.Properties ?? {};
    if (resource.Type === 'AWS::Lambda::EventSourceMapping' && props.Enabled !== false) {
      const functionRef = props.FunctionName;
      const functionId =
        functionRef && typeof functionRef === 'object' && !Array.isArray(functionRef) ? functionRef.Ref : undefined;
      const sourceArn = props.EventSourceArn;
      const getAtt =
        sourceArn && typeof sourceArn === 'object' && !Array.isArray(sourceArn) ? sourceArn['Fn::GetAtt'] : undefined;
      if (typeof functionId !== 'string' || !Array.isArray(getAtt) || typeof getAtt[0] !== 'string')
        throw new Error(
          `event source mapping ${logicalId}: the local runtime reads a function's Ref and a source's GetAtt`,
        );
      const sourceType = resources[getAtt[0]]?.Type;
      const kind =
        sourceType === 'AWS::DynamoDB::Table' ? 'stream' : sourceType === 'AWS::SQS::Queue' ? 'queue' : undefined;
      if (!kind) throw new Error(`event source mapping ${logicalId}: the local runtime has no ${sourceType} to read`);
      const filters = (props.FilterCriteria as { Filters?: { Pattern?: unknown }[] } | undefined)?.Filters ?? [];
      const whole = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : undefined);
      const maxAgeSeconds = whole(props.MaximumRecordAgeInSeconds);
      const batchSize = whole(props.BatchSize);
      const parallelization = whole(props.ParallelizationFactor);
      mappings.push({
        functionId,
        source: { kind, logicalId: getAtt[0] },
        patterns: filters.map((filter) => JSON.parse(String(filter.Pattern)) as Record<string, unknown>),
        ...(batchSize !== undefined && { batchSize }),
        ...(parallelization !== undefined && { parallelization }),
        retryAttempts: whole(props.MaximumRetryAttempts) ?? Number.POSITIVE_INFINITY,
        ...(maxAgeSeconds !== undefined && { maxRecordAgeMs: maxAgeSeconds * 1000 }),
      });
      continue;
    }
    if (
      resource.Type === 'AWS::Events::Rule' &&
      (props.EventPattern || props.ScheduleExpression) &&
      props.State !== 'DISABLED'
    ) {
      const targets = Array.isArray(props.Targets) ? props.Targets : [];
      const functionIds = targets.flatMap((target) => {
        const arn = target && typeof target === 'object' && !Array.isArray(target) ? target.Arn : undefined;
        const getAtt = arn && typeof arn === 'object' && !Array.isArray(arn) ? arn['Fn::GetAtt'] : undefined;
        return Array.isArray(getAtt) &&
          typeof getAtt[0] === 'string' &&
          resources[getAtt[0]]?.Type === 'AWS::Lambda::Function'
          ? [getAtt[0]]
          : [];
      });
      if (functionIds.length === 0) continue;
      if (props.EventPattern) {
        rules.push({ pattern: props.EventPattern, functionIds });
        continue;
      }
      const everyMs = rateMs(props.ScheduleExpression);
      if (everyMs === undefined)
        throw new Error(
          `rule ${logicalId}: the local runtime runs rate() schedules only, not ${JSON.stringify(props.ScheduleExpression)}`,
        );
      rules.push({ ruleName: typeof props.Name === 'string' ? props.Name : logicalId, everyMs, functionIds });
    } else if (resource.Type === 'AWS::Lambda::Function') {
      const assetPath = resource.Metadata?.['aws:asset:path'];
      if (typeof assetPath !== 'string')
        throw new Error(
          `function ${logicalId} has no asset path: synthesize with the context aws:cdk:enable-asset-metadata`,
        );
      const environment = (props.Environment as { Variables?: Record<string, CfnValue> } | undefined)?.Variables ?? {};
      functions.set(logicalId, {
        functionName: typeof props.FunctionName === 'string' ? props.FunctionName : logicalId,
        handler: String(props.Handler),
        runtime: String(props.Runtime),
        // Lambda's defaults when a template leaves them out.
        memoryMb: typeof props.MemorySize === 'number' ? props.MemorySize : 128,
        timeoutSeconds: typeof props.Timeout === 'number' ? props.Timeout : 3,
        environment,
        codeDir: join(assemblyDir, assetPath),
      });
    } else if (resource.Type === 'AWS::ApiGateway::Authorizer') {
      authorizers.set(logicalId, {
        type: String(props.Type),
        identitySource: String(props.IdentitySource),
        ttlSeconds: typeof props.AuthorizerResultTtlInSeconds === 'number' ? props.AuthorizerResultTtlInSeconds : 300,
        functionId: invokedFunction(props.AuthorizerUri, resources, logicalId),
      });
    }
  }
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::ApiGateway::Method') continue;
    const props = resource.Properties ?? {};
    const integration = props.Integration as { Type?: string; Uri?: CfnValue } | undefined;
    // Only Lambda proxy integrations are served locally (the stack has no other kind).
    if (integration?.Type !== 'AWS_PROXY') continue;
    const authorizerRef = (props.AuthorizerId as { Ref?: string } | undefined)?.Ref;
    methods.push({
      httpMethod: String(props.HttpMethod),
      path: resourcePath(props.ResourceId, resources),
      authorizationType: String(props.AuthorizationType ?? 'NONE'),
      ...(authorizerRef && { authorizerId: authorizerRef }),
      functionId: invokedFunction(integration.Uri, resources, logicalId),
    });
  }
  return { template, rules, mappings, functions, methods, authorizers };
}

/** The function whose `Arn` an integration or authorizer URI is built from (exactly one). */
function invokedFunction(uri: CfnValue | undefined, resources: Template['Resources'], owner: string): string {
  const targets = new Set<string>();
  const visit = (value: CfnValue | undefined): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const getAtt = value['Fn::GetAtt'];
      if (
        Array.isArray(getAtt) &&
        typeof getAtt[0] === 'string' &&
        resources[getAtt[0]]?.Type === 'AWS::Lambda::Function'
      )
        targets.add(getAtt[0]);
      Object.values(value).forEach(visit);
    }
  };
  visit(uri);
  if (targets.size !== 1)
    throw new Error(
      `${owner} does not invoke exactly one function of the stack (found ${[...targets].join(', ') || 'none'})`,
    );
  return [...targets][0]!;
}

/** `/a/{b}/c` from the chain of AWS::ApiGateway::Resource parents up to the API's root. */
function resourcePath(resourceId: CfnValue | undefined, resources: Template['Resources']): string {
  const parts: string[] = [];
  let current = resourceId;
  for (let depth = 0; depth < 64; depth++) {
    const ref = current && typeof current === 'object' && !Array.isArray(current) ? current.Ref : undefined;
    // The root resource is `Fn::GetAtt [RestApi, RootResourceId]`: the walk ends there.
    if (typeof ref !== 'string') return `/${parts.reverse().join('/')}`;
    const resource = resources[ref];
    if (resource?.Type !== 'AWS::ApiGateway::Resource')
      throw new Error(`method resource ${ref} is not an API Gateway resource`);
    parts.push(String(resource.Properties?.PathPart));
    current = resource.Properties?.ParentId;
  }
  throw new Error('the API resource tree is deeper than 64 levels');
}
