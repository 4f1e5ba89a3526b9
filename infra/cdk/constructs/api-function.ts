/**
 * A Lambda function with the house defaults: Node 24 on x86_64, one
 * minified CommonJS bundle with the AWS SDK inside, built by the local esbuild (no Docker) in one run
 * with every other function's (function-bundles.ts) and shipped with its V8 compile cache
 * (compile-cache.ts), its own log group with the stage's retention
 * (and a role that may write to that group only), X-Ray tracing, and `bindTable` for
 * least-privilege table access.
 */
import { Annotations, Duration } from 'aws-cdk-lib';
import { Unit } from 'aws-cdk-lib/aws-cloudwatch';
import { Grant, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type FunctionProps,
  Function as LambdaFunction,
  Runtime,
  RuntimeManagementMode,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FilterPattern, LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { FUNCTION_TIMEOUT_SECONDS, type TableAccess } from '#shared/api/route-spec';
import { INIT_METRIC, METRICS_NAMESPACE } from '#shared/http/metric-names';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import type { StageConfig } from '../stage/config.ts';
import { compileCacheTarget } from './compile-cache.ts';
import type { SpecTable } from './data.ts';
import { bundledCode, type FunctionBundling } from './function-bundles.ts';

/** The service name in every log line and trace (Powertools). */
export const SERVICE_NAME = 'cxm-api';

/**
 * The runtime of every function: the current Lambda LTS (its Node major is esbuild's target). Bundle
 * mode runs the bundles on the same Node, from the version pinned in package.json's
 * optionalDependencies (infra/lambda-node.ts); a test keeps the two majors equal.
 */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

/**
 * The functions' architecture: x86_64, the platform the bundles are built on here and in CI, since
 * a compile cache serves only the architecture it was made on (V8 rejects another's entries) and
 * a cold start without it costs more than Graviton's lower price per millisecond saves.
 */
export const LAMBDA_ARCHITECTURE = Architecture.X86_64;
/** LAMBDA_ARCHITECTURE as Node names it (`process.arch`): `x86_64` is Node's `x64`. */
const LAMBDA_NODE_ARCH = LAMBDA_ARCHITECTURE.name === 'x86_64' ? 'x64' : LAMBDA_ARCHITECTURE.name;

/**
 * How every function is bundled. Exported so `npm run bench` builds its bundles with exactly these
 * settings (esbuildOptions, without synthesizing the stack).
 */
export const LAMBDA_BUNDLING = {
  // CommonJS, which the entry compiles with V8's code cache (compile-cache.ts); esbuild still reads
  // the packages' ES module builds (mainFields) and shakes them.
  format: OutputFormat.CJS,
  minify: true,
  // No source map: `--enable-source-maps` makes Node parse it at every cold start, and the
  // names that matter in a stack (ours) survive minification through keepNames.
  sourceMap: false,
  keepNames: true,
  // Bundle the SDK: a pinned, tree-shaken client instead of whatever the runtime carries.
  externalModules: [],
  mainFields: ['module', 'main'],
  forceDockerBundling: false,
  // esbuild's size report on every synth is noise; warnings and errors still show.
  logLevel: LogLevel.WARNING,
} satisfies FunctionBundling;

export interface ApiFunctionProps extends Omit<FunctionProps, 'code' | 'handler' | 'runtime' | 'logGroup'> {
  /** Handler module relative to the project root, as in the route table (`functions/...ts`). */
  entry: string;
  config: StageConfig;
  /** What this function's bundle takes beyond LAMBDA_BUNDLING (a reporting list's backend). */
  bundling?: Partial<FunctionBundling>;
}

export class ApiFunction extends LambdaFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const { entry, config, bundling, environment, role: givenRole, ...overrides } = props;
    // A log group we own, so retention and removal follow the stage instead of "never expire".
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      ...(props.functionName && { logGroupName: `/aws/lambda/${props.functionName}` }),
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
    // Not AWSLambdaBasicExecutionRole: it may create and write every log group in the account; this
    // function writes to its own group only.
    const role = givenRole ?? new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    const compileCache = compileCacheTarget(config.stage, LAMBDA_NODE_ARCH);
    super(scope, id, {
      runtime: LAMBDA_RUNTIME,
      // Lambda's runtime updates reach a function with a deploy (which `cxm smoke` then checks), not
      // under a running stage on Lambda's schedule; a pinned runtime version (Manual) would forgo its
      // security patches.
      runtimeManagementMode: RuntimeManagementMode.FUNCTION_UPDATE,
      architecture: LAMBDA_ARCHITECTURE,
      memorySize: config.memorySize,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      // Lambda's own X-Ray segments (init, invocation), joined to the API stage's trace. No
      // Powertools tracer or X-Ray SDK in the bundles: per-call subsegments are not worth their
      // cold-start cost.
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      ...overrides,
      code: bundledCode(entry, { ...LAMBDA_BUNDLING, ...bundling }, LAMBDA_RUNTIME, compileCache),
      handler: 'index.handler',
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: config.logLevel,
        [FUNCTION_ENV.stage]: config.stage,
        ...environment,
      },
    });
    logGroup.addMetricFilter('Inits', {
      filterPattern: FilterPattern.stringValue('$.message', '=', 'init'),
      metricNamespace: METRICS_NAMESPACE,
      metricName: INIT_METRIC,
      metricValue: '1',
      unit: Unit.COUNT,
      dimensions: { service: '$.service', stage: '$.stage', compileCache: '$.compileCache.state' },
    });
    if ('without' in compileCache) Annotations.of(this).addWarningV2('cxm:no-compile-cache', compileCache.without);
  }

  /**
   * Grants exactly the access the route table names (read, or read and write) on one table, and
   * tells the function the table's physical name through the spec's environment variable.
   */
  bindTable(table: SpecTable, access: TableAccess): void {
    // Exactly the operations the route table names, on the table; Query on the indexes it names.
    // No index wildcard to audit, and no write action on an index, where none applies.
    const operations = access.operations ?? [];
    if (operations.length > 0)
      Grant.addToPrincipal({
        grantee: this,
        actions: operations.map((operation) => `dynamodb:${operation}`),
        resourceArns: [table.tableArn],
      });
    const unknown = (access.indexQueries ?? []).filter(
      (name) => !table.spec.indexes.some((index) => index.name === name),
    );
    if (unknown.length > 0)
      throw new Error(`${this.node.path}: table ${table.spec.id} has no index ${unknown.join(', ')}`);
    const indexArns = (access.indexQueries ?? []).map((name) => `${table.tableArn}/index/${name}`);
    if (indexArns.length > 0)
      Grant.addToPrincipal({ grantee: this, actions: ['dynamodb:Query'], resourceArns: indexArns });
    this.addEnvironment(table.spec.envVar, table.tableName);
  }
}
