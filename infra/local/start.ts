/**
 * `npm start`: DynamoDB Local + the local gateway, serving every route (infra/local/README.md).
 *   PORT (3000; 0 picks a free port), CXM_HOME (.cxm), CXM_IN_MEMORY=1, CXM_AUTH_CACHE_TTL (60 s),
 *   CXM_RATE_LIMIT (<rate>/<burst> per tenant, 50/100), CXM_STAGE_RATE_LIMIT (each route, before
 *   the authorizer, 2000/4000), CXM_RUNTIME (sources | bundles),
 *   CXM_LOG_LEVEL (error | warn | info | debug), CXM_FUNCTION_CONCURRENCY (bundle mode, 8),
 *   CXM_IDEMPOTENCY_TTL_HOURS (24; how long an Idempotency-Key's answer is replayed),
 *   CXM_CURSOR_SECRET_PREVIOUS (a rotated cursor key still accepted), CXM_KEY_TAG_SECRET_PREVIOUS
 *   (a rotated key-tag secret still accepted), CXM_ACCEPT_UNTAGGED_KEYS (true | false, keys issued
 *   before tags; true),
 *   CXM_SCHEDULE_SECONDS (run the stage's scheduled rules, the analysis sweep, this often instead
 *   of their rate)
 */
import { join } from 'node:path';
import { DEFAULT_RATE_LIMIT, DEFAULT_STAGE_RATE_LIMIT } from '#infra/cdk/default-rate-limits';
import { acceptsUntaggedKeys } from '#shared/auth/untagged-keys';
import { FUNCTION_ENV } from '#shared/function-env';
import { idempotencyTtlMs } from '#shared/store/idempotency-ttl';
import type { TableId } from '#shared/store/table-specs';
import { wholeNumberSetting } from '#shared/whole-number-setting';
import { LOCAL_STAGE } from './build-proxy-event.ts';
import { DEMO_TENANT, ensureDemoTenant } from './demo-tenant.ts';
import { createTables, type DynamoDbLocal, LOCAL_REGION, StartupError, startDynamoDbLocal } from './dynamodb-local.ts';
import { functionRuntimeKind } from './function-runtime.ts';
import { prepareInvocationStore } from './invocation-scope.ts';
import { localLog, parseLocalLogLevel } from './local-log.ts';
import { LOCAL_SECRET_FILES, localSecret } from './local-secret-file.ts';
import { cxmHome, localStatePath, restrictStateDir, writeLocalState } from './local-state.ts';
import { pointAtLocalDynamo } from './point-at-local-dynamo.ts';
import { type BoundGateway, bindGateway } from './serve-gateway.ts';
import { maxEnvironments } from './start-function-runtime.ts';
import { formatRateLimit, parseRateLimit } from './token-buckets.ts';

/** A setting's own check, reported as the one-line startup error it is. */
function asStartupError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new StartupError(error instanceof Error ? error.message : String(error));
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  // Before any AWS SDK call (DynamoDB Local's first answer included): see invocation-scope.ts.
  await prepareInvocationStore();
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Handler logs are JSON for CloudWatch; locally only warnings and faults are worth a line.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  // EMF metric lines are for CloudWatch; here they would only flood the terminal.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  let dynamo: DynamoDbLocal | undefined;
  let gateway: BoundGateway | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await gateway?.close();
    await dynamo?.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGHUP', () => void stop(0));
  // Whatever ends this process, DynamoDB Local must not outlive it.
  process.on('exit', () => dynamo?.killNow());

  try {
    const port = asStartupError(() => wholeNumberSetting('PORT', 3000, 0, 65535));
    // Unset: the deployed authorizer's TTL (bundles read it from the template), else 60 s.
    const authCacheTtlSeconds = asStartupError(() => wholeNumberSetting('CXM_AUTH_CACHE_TTL', undefined, 0, 3600));
    const scheduleEverySeconds = asStartupError(() => wholeNumberSetting('CXM_SCHEDULE_SECONDS', undefined, 1, 86_400));
    const inMemory = process.env.CXM_IN_MEMORY === '1';
    const logLevel = parseLocalLogLevel(process.env.CXM_LOG_LEVEL);
    if (!logLevel) throw new StartupError(`CXM_LOG_LEVEL=${process.env.CXM_LOG_LEVEL} is not valid; use error, warn, info or debug.`);
    const runtimeKind = asStartupError(() => functionRuntimeKind());
    asStartupError(() => maxEnvironments());
    asStartupError(() => idempotencyTtlMs());
    asStartupError(() => acceptsUntaggedKeys());
    const rateLimit = parseRateLimit(process.env.CXM_RATE_LIMIT || formatRateLimit(DEFAULT_RATE_LIMIT));
    if (!rateLimit) throw new StartupError(`CXM_RATE_LIMIT=${process.env.CXM_RATE_LIMIT} is not valid; give <rate per second>/<burst>, e.g. 50/100.`);
    const stageRateLimit = parseRateLimit(process.env.CXM_STAGE_RATE_LIMIT || formatRateLimit(DEFAULT_STAGE_RATE_LIMIT));
    if (!stageRateLimit) throw new StartupError(`CXM_STAGE_RATE_LIMIT=${process.env.CXM_STAGE_RATE_LIMIT} is not valid; give <rate per second>/<burst>, e.g. 2000/4000.`);
    const home = cxmHome();
    // Keys, the store's credentials, its data: readable by the user only (local-state.ts).
    restrictStateDir(home);
    gateway = await bindGateway(port);
    dynamo = await startDynamoDbLocal({ dataDir: inMemory ? undefined : join(home, 'dynamodb') });
    const tables = (await createTables(dynamo, LOCAL_STAGE)) as Record<TableId, string>;
    pointAtLocalDynamo(dynamo, tables);
    process.env[FUNCTION_ENV.cursorSecret] = localSecret(inMemory ? undefined : home, LOCAL_SECRET_FILES.cursorSecret);
    const keyTagSecret = localSecret(inMemory ? undefined : home, LOCAL_SECRET_FILES.keyTagSecret);
    process.env[FUNCTION_ENV.keyTagSecret] = keyTagSecret;
    const { functions, s3Endpoint, recordingsBucket } = await gateway.serve({
      recordingsDir: inMemory ? undefined : join(home, 'recordings'),
      authCacheTtlSeconds,
      scheduleEverySeconds,
      rateLimit,
      stageRateLimit,
      log: localLog(logLevel),
      onFault: (error) => console.error('local gateway fault:', error),
    });
    // Through the store's gate, as every call of this process from serve() on.
    const demoKey = await ensureDemoTenant(inMemory ? undefined : home, keyTagSecret);
    writeLocalState(
      {
        apiUrl: gateway.url,
        dynamodbEndpoint: dynamo.endpoint,
        dynamodbCredentials: dynamo.credentials,
        s3Endpoint,
        recordingsBucket,
        region: LOCAL_REGION,
        stage: LOCAL_STAGE,
        tables,
        demo: { tenant: DEMO_TENANT, key: demoKey },
        keyTagSecret,
        pid: process.pid,
      },
      home,
    );
    console.log(`CXM API listening on ${gateway.url}`);
    console.log(`Functions:   ${functions}${runtimeKind === 'sources' ? ' (CXM_RUNTIME=bundles serves the deployable bundles)' : ''}`);
    console.log(`Recordings:  ${s3Endpoint}/${recordingsBucket} (local S3; VOC uploads go here)`);
    console.log(`Ready in:    ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(`Demo tenant: ${DEMO_TENANT}`);
    console.log(`Demo key:    ${demoKey}`);
    console.log(`State:       ${inMemory ? 'in memory (CXM_IN_MEMORY=1)' : home} (${localStatePath(home)})`);
    console.log(
      `Try:         curl -i -X POST ${gateway.url}/api/v1/cxm/tenants/${DEMO_TENANT}/conversations/conv-1001/internal-notes ` +
        `-H "Authorization: Bearer ${demoKey}" -H "Content-Type: application/json" -d '{"body":"Customer called back"}'`,
    );
    console.log('Press Ctrl-C to stop.');
  } catch (error) {
    console.error(error instanceof StartupError ? `cxm: ${error.message}` : error);
    await stop(1);
  }
}

await main();
