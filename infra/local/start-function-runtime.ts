/**
 * Starts the runtime `CXM_RUNTIME` names. Both take the local wiring from this process's
 * environment, where the local runtime put it (point-at-local-dynamo.ts, the local secrets): the sources
 * read it directly; bundle mode hands it to the bundles only where the template's references ask
 * for it (a table, a secret, the region), besides Lambda's own variables and the local endpoints.
 *
 * Bundle mode uses the cloud assembly in `CXM_ASSEMBLY_DIR` when set (the test run synthesizes one
 * for all its files), else synthesizes the local stage for the reporting backend it is asked for
 * (CXM_REPORTING_BACKEND) or reuses the synthesis of the same sources.
 */

import { LOCAL_STAGE, stackName } from '#infra/stage-names';
import { RECORDING_SETTING_ENVS } from '#shared/settings/recording-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { WEBHOOK_SETTING_ENVS } from '#shared/settings/webhook-settings';
import { allTableSpecs, type TableId } from '#shared/store/table-specs';
import { startBundleRuntime } from './bundle-runtime.ts';
import { type FunctionRuntime, functionRuntimeKind, maxEnvironments } from './function-runtime.ts';
import { lambdaNode } from './lambda-node.ts';
import { ensureLocalAssembly } from './local-assembly.ts';
import { type LocalLog, localLog } from './local-log.ts';
import type { AssemblyFunction } from './read-assembly.ts';
import { startSourceRuntime } from './source-runtime.ts';

/** Variables of this process that the bundles get too when set: they tune logs, not behaviour. */
const PASSED_THROUGH = [
  'POWERTOOLS_LOG_LEVEL',
  'POWERTOOLS_METRICS_DISABLED',
  'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED',
];
/**
 * Stage settings a developer may change locally through the same variable the function reads: in
 * bundle mode the value replaces the template's, in the functions whose template sets it.
 */
const LOCAL_SETTINGS = [
  FUNCTION_ENV.idempotencyTtlHours,
  FUNCTION_ENV.acceptUntaggedKeys,
  FUNCTION_ENV.documentVersionsKeep,
  FUNCTION_ENV.documentVersionsMaxAgeDays,
  ...RECORDING_SETTING_ENVS,
  // The local runtime's webhook targets (loopback receivers) replace the template's `stage`.
  ...WEBHOOK_SETTING_ENVS,
  // A test's own OpenSearch layout beside the local stage's.
  FUNCTION_ENV.opensearchIndexPrefix,
];

function localSettings(variables: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    LOCAL_SETTINGS.flatMap((name) => (name in variables && process.env[name] ? [[name, process.env[name]!]] : [])),
  );
}

export interface StartFunctionRuntimeOptions {
  log?: LocalLog;
  /** Extra variables for a bundle (bundle mode only), e.g. the gateway's own origins. */
  extraEnvironment?: (fn: AssemblyFunction, variables: Record<string, string>) => Record<string, string> | undefined;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `bundle mode needs ${name} in the local runtime's environment (the local runtime sets it before serving)`,
    );
  return value;
}

export async function startFunctionRuntime(options: StartFunctionRuntimeOptions = {}): Promise<FunctionRuntime> {
  const log = options.log ?? localLog('info');
  if (functionRuntimeKind() === 'sources') return startSourceRuntime();

  const node = lambdaNode();
  if (node.warning) log.line('warn', `cxm: ${node.warning}`);
  const stage = LOCAL_STAGE;
  const opensearchEndpoint =
    process.env[FUNCTION_ENV.reportingBackend] === 'opensearch' ? required(FUNCTION_ENV.opensearchEndpoint) : undefined;
  const assemblyDir =
    process.env.CXM_ASSEMBLY_DIR ||
    (
      await ensureLocalAssembly(stage, opensearchEndpoint ? 'opensearch' : 'dynamodb', (line) =>
        log.line('info', `cxm: ${line}`),
      )
    ).dir;
  const tables = Object.fromEntries(allTableSpecs.map((spec) => [spec.id, required(spec.envVar)])) as Record<
    TableId,
    string
  >;
  const overrides = Object.fromEntries(
    PASSED_THROUGH.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])),
  );
  return startBundleRuntime({
    assemblyDir,
    stackId: stackName(stage),
    stage,
    region: required('AWS_REGION'),
    credentials: { accessKeyId: required('AWS_ACCESS_KEY_ID'), secretAccessKey: required('AWS_SECRET_ACCESS_KEY') },
    dynamoEndpoint: required('AWS_ENDPOINT_URL_DYNAMODB'),
    s3Endpoint: required('AWS_ENDPOINT_URL_S3'),
    transcribeEndpoint: required('AWS_ENDPOINT_URL_TRANSCRIBE'),
    sqs: { endpoint: required('AWS_ENDPOINT_URL_SQS'), queueUrl: required(FUNCTION_ENV.webhookQueueUrl) },
    ...(opensearchEndpoint && { opensearchEndpoint }),
    ...(process.env[FUNCTION_ENV.apiHosts] && { apiHosts: process.env[FUNCTION_ENV.apiHosts] }),
    tables,
    secrets: {
      cursorSecret: {
        current: process.env[FUNCTION_ENV.cursorSecret],
        previous: process.env[FUNCTION_ENV.cursorSecretPrevious],
      },
      keyTagSecret: {
        current: process.env[FUNCTION_ENV.keyTagSecret],
        previous: process.env[FUNCTION_ENV.keyTagSecretPrevious],
      },
      webhookSecretKey: {
        current: process.env[FUNCTION_ENV.webhookSecretKey],
        previous: process.env[FUNCTION_ENV.webhookSecretKeyPrevious],
      },
    },
    overrides,
    maxEnvironments: maxEnvironments(),
    ...(log.enabled('debug') && { report: (line: string) => log.line('debug', line) }),
    extraEnvironment: (fn, variables) => ({
      ...localSettings(variables),
      ...options.extraEnvironment?.(fn, variables),
    }),
  });
}
