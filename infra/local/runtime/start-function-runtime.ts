/**
 * Starts the runtime `CXM_RUNTIME` names, wired with this process's environment (the store and the
 * secrets, which point-at-local-dynamo.ts and npm start put there) and the gateway's wiring over it
 * (its S3, Transcribe and queue). The sources get it as their process's environment; bundle mode
 * hands it to the bundles only where the template's references ask for it (a table, a secret, the
 * region), besides Lambda's own variables and the local endpoints.
 *
 * Bundle mode uses the cloud assembly in `CXM_ASSEMBLY_DIR` when set (the test run synthesizes one
 * for all its files), else synthesizes the local stage for the reporting backend it is asked for
 * (CXM_REPORTING_BACKEND) or reuses the synthesis of the same sources.
 */

import { lambdaNode } from '#infra/lambda-node';
import { LOCAL_STAGE, stackName } from '#infra/stage-names';
import { SECRET_IDS } from '#shared/api/route-spec';
import { searchesOpenSearch } from '#shared/settings/opensearch-settings';
import { RECORDING_SETTING_ENVS } from '#shared/settings/recording-settings';
import { secretConfiguration } from '#shared/settings/secret-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { WEBHOOK_SETTING_ENVS, webhookOwnHosts } from '#shared/settings/webhook-settings';
import { allTableSpecs, type TableId } from '#shared/store/table-specs';
import { type LocalOriginsEnv, withLocalOrigins } from '../gateway/local-origins.ts';
import { startBundleRuntime } from './bundle-runtime.ts';
import { type FunctionRuntime, functionRuntimeKind, type LocalWiring, maxEnvironments } from './function-runtime.ts';
import { ensureLocalAssembly } from './local-assembly.ts';
import { type LocalLog, localLog } from './local-log.ts';
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

/** The local values of the settings a bundle's template sets, and the gateway's own origins where it checks them. */
function localVariables(
  environment: NodeJS.ProcessEnv,
  origins: LocalOriginsEnv,
  variables: Record<string, string>,
): Record<string, string> {
  const settings = Object.fromEntries(
    LOCAL_SETTINGS.flatMap((name) => (name in variables && environment[name] ? [[name, environment[name]]] : [])),
  );
  return {
    ...settings,
    ...(FUNCTION_ENV.allowedOrigins in variables && withLocalOrigins(variables, origins)),
  };
}

export interface StartFunctionRuntimeOptions {
  log?: LocalLog;
  /** What the gateway set up for the functions: its S3, Transcribe and queue, its own hosts. */
  wiring: LocalWiring;
  /** The gateway's own origins, which the functions that check origins accept besides their own. */
  origins: LocalOriginsEnv;
}

export async function startFunctionRuntime(options: StartFunctionRuntimeOptions): Promise<FunctionRuntime> {
  const log = options.log ?? localLog('info');
  if (functionRuntimeKind() === 'sources') return startSourceRuntime(options);

  const environment: NodeJS.ProcessEnv = { ...process.env, ...options.wiring };
  const required = (name: string): string => {
    const value = environment[name];
    if (!value)
      throw new Error(
        `bundle mode needs ${name} in the local runtime's environment (the local runtime sets it before serving)`,
      );
    return value;
  };

  const node = lambdaNode();
  if (node.warning) log.line('warn', `cxm: ${node.warning}`);
  const stage = LOCAL_STAGE;
  const opensearchEndpoint = searchesOpenSearch(environment) ? required(FUNCTION_ENV.opensearchEndpoint) : undefined;
  const assemblyDir =
    environment.CXM_ASSEMBLY_DIR ||
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
    PASSED_THROUGH.flatMap((name) => (environment[name] === undefined ? [] : [[name, environment[name]]])),
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
    apiHosts: webhookOwnHosts(options.wiring).join(','),
    tables,
    secrets: Object.fromEntries(
      SECRET_IDS.map((id) => {
        const { value, previous } = secretConfiguration(id, environment);
        return [id, { current: value, previous }];
      }),
    ),
    overrides,
    maxEnvironments: maxEnvironments(environment),
    ...(log.enabled('debug') && { report: (line: string) => log.line('debug', line) }),
    extraEnvironment: (_fn, variables) => localVariables(environment, options.origins, variables),
  });
}
