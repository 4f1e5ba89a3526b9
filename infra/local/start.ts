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
 *   of their rate), CXM_REPORTING_BACKEND (dynamodb | opensearch: the local OpenSearch engine,
 *   started beside DynamoDB Local), CXM_OPENSEARCH_HEAP (512m). read-start-settings.ts reads and
 *   checks them before anything starts, but for CXM_CURSOR_SECRET_PREVIOUS and
 *   CXM_KEY_TAG_SECRET_PREVIOUS, which the functions read.
 */
import { join } from 'node:path';
import { LOCAL_STAGE } from '#infra/stage-names';
import { sealingPublicKeyText } from '#shared/domain/webhooks/sealed-secret';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { reportingIndexPrefix } from '#shared/store/opensearch-index-names';
import type { TableId } from '#shared/store/table-specs';
import { DEMO_TENANT, ensureDemoTenant } from './demo-tenant.ts';
import { createTables, type DynamoDbLocal, startDynamoDbLocal } from './emulators/dynamodb-local.ts';
import { localFunctionCredentials } from './emulators/local-dynamo-gate.ts';
import { LOCAL_REGION } from './emulators/local-identity.ts';
import { StartupError } from './emulators/local-programs.ts';
import {
  LOCAL_INDEX_SHARDS,
  type LocalOpenSearch,
  pointAtLocalOpenSearch,
  startLocalOpenSearch,
} from './emulators/opensearch/local-opensearch.ts';
import { type ReportingIndexSync, syncReportingIndex } from './emulators/opensearch/sync-reporting-index.ts';
import { pointAtLocalDynamo } from './emulators/point-at-local-dynamo.ts';
import { LOCAL_SECRET_FILES, localSecret } from './local-secret-file.ts';
import { localStatePath, restrictStateDir, writeLocalState } from './local-state.ts';
import { readStartSettings, type StartSettings } from './read-start-settings.ts';
import { prepareInvocationStore } from './runtime/invocation-scope.ts';
import { localLog } from './runtime/local-log.ts';
import { type BoundGateway, bindGateway } from './serve-gateway.ts';

/** The stores, started side by side: DynamoDB Local, and the OpenSearch engine when reporting is served from it. */
async function startStores(
  { inMemory, home, java, reportingBackend, opensearchHeap }: StartSettings,
  onStarted: (stores: { dynamo?: DynamoDbLocal; engine?: LocalOpenSearch }) => void,
): Promise<{ dynamo: DynamoDbLocal; engine: LocalOpenSearch | undefined }> {
  const [dynamo, engine] = await Promise.allSettled([
    startDynamoDbLocal({ dataDir: inMemory ? undefined : join(home, 'dynamodb'), java }),
    reportingBackend === 'opensearch'
      ? startLocalOpenSearch({
          dataDir: inMemory ? undefined : join(home, 'opensearch'),
          // The local functions' own key: what the lists and the indexer sign with.
          credentials: localFunctionCredentials(),
          region: LOCAL_REGION,
          heap: opensearchHeap,
          java,
        })
      : Promise.resolve(undefined),
  ]);
  onStarted({
    ...(dynamo.status === 'fulfilled' && { dynamo: dynamo.value }),
    ...(engine.status === 'fulfilled' && engine.value && { engine: engine.value }),
  });
  if (dynamo.status === 'rejected') throw dynamo.reason;
  if (engine.status === 'rejected') throw engine.reason;
  return { dynamo: dynamo.value, engine: engine.value };
}

/** The banner's line on where the reporting lists search, with what the engine's start took. */
function reportingLine(engine: LocalOpenSearch | undefined, sync: ReportingIndexSync | undefined, ms: number): string {
  if (!engine || !sync)
    return 'Reporting:   DynamoDB (CXM_REPORTING_BACKEND=opensearch serves it from the OpenSearch engine, as a stage does)';
  const failed =
    sync.failed.length > 0
      ? `; ${sync.failed.length} could not be indexed, the first: ${sync.failed[0]!.key}: ${sync.failed[0]!.reason}`
      : '';
  const refused =
    sync.mappingsRefused.length > 0
      ? `; the ${sync.mappingsRefused.map(({ kind }) => kind).join(' and ')} indexes refused the current mappings, so new ` +
        `fields reach next year's index only: stop, delete the state folder's opensearch folder and start again to rebuild`
      : '';
  return (
    `Reporting:   OpenSearch ${engine.version} at ${engine.endpoint} (started in ${(engine.startMs / 1000).toFixed(1)} s; ` +
    `${sync.rows} rows indexed from the table${sync.removed > 0 ? `, ${sync.removed} gone from it removed` : ''} in ${(ms / 1000).toFixed(1)} s${failed}${refused})`
  );
}

/** How long a stop waits for the gateway's work under way before the stores are stopped. */
const STOP_GRACE_MS = 3_000;

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
  let engine: LocalOpenSearch | undefined;
  let gateway: BoundGateway | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // Whatever is queued or under way (a webhook attempt may take 15 s): a stop is prompt, and a
    // delivery cut short stays pending, as on a stage whose function timed out.
    let grace: NodeJS.Timeout | undefined;
    const cut = await Promise.race([
      gateway?.close().then(() => false),
      new Promise<boolean>((resolve) => (grace = setTimeout(() => resolve(true), STOP_GRACE_MS))),
    ]);
    clearTimeout(grace);
    if (cut) console.log(`cxm: stopped with work under way after ${STOP_GRACE_MS / 1000} s`);
    await Promise.all([engine?.stop(), dynamo?.stop()]);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGHUP', () => void stop(0));
  // Whatever ends this process, DynamoDB Local and the engine must not outlive it.
  process.on('exit', () => {
    dynamo?.killNow();
    engine?.killNow();
  });

  try {
    const reading = readStartSettings(process.env, process.cwd());
    if (!reading.ok) throw new StartupError(reading.message);
    const { port, home, inMemory, authCacheTtlSeconds, scheduleEverySeconds, logLevel, runtime } = reading.settings;
    const { rateLimit, stageRateLimit } = reading.settings;
    // Keys, the store's credentials, its data: readable by the user only (local-state.ts).
    restrictStateDir(home);
    gateway = await bindGateway(port);
    ({ dynamo, engine } = await startStores(reading.settings, (stores) => ({ dynamo, engine } = stores)));
    const tables = (await createTables(dynamo, LOCAL_STAGE, reading.settings.reportingBackend)) as Record<
      TableId,
      string
    >;
    pointAtLocalDynamo(dynamo, tables);
    const indexPrefix = reportingIndexPrefix(LOCAL_STAGE);
    if (engine) pointAtLocalOpenSearch(engine.endpoint, indexPrefix);
    // Before the indexer's stream reader takes its place: what is written from here on reaches the engine through it.
    const readingFrom = Date.now();
    process.env[FUNCTION_ENV.cursorSecret] = localSecret(inMemory ? undefined : home, LOCAL_SECRET_FILES.cursorSecret);
    const keyTagSecret = localSecret(inMemory ? undefined : home, LOCAL_SECRET_FILES.keyTagSecret);
    process.env[FUNCTION_ENV.keyTagSecret] = keyTagSecret;
    const webhookSecretKey = localSecret(inMemory ? undefined : home, LOCAL_SECRET_FILES.webhookSecretKey);
    process.env[FUNCTION_ENV.webhookSecretKey] = webhookSecretKey;
    // What a deploy gives the registration and the rotation (infra/cdk/constructs/webhook-sealing-key.ts).
    process.env[FUNCTION_ENV.webhookSealingKey] = sealingPublicKeyText(webhookSecretKey);
    const { functions, s3Endpoint, recordingsBucket } = await gateway.serve({
      recordingsDir: inMemory ? undefined : join(home, 'recordings'),
      authCacheTtlSeconds,
      scheduleEverySeconds,
      rateLimit,
      stageRateLimit,
      // Endpoints registered before this start are delivered to from its first event on.
      webhookStreams: 'read',
      log: localLog(logLevel),
      onFault: (error) => console.error('local gateway fault:', error),
    });
    // Through the store's gate, as every call of this process from serve() on.
    const demoKey = await ensureDemoTenant(inMemory ? undefined : home, keyTagSecret);
    const syncStarted = Date.now();
    const sync =
      engine &&
      (await syncReportingIndex({
        client: engine.client,
        prefix: indexPrefix,
        shards: LOCAL_INDEX_SHARDS,
        store: dynamo,
        region: LOCAL_REGION,
        table: tables.reporting,
        startedAtMs: readingFrom,
      }));
    const syncMs = Date.now() - syncStarted;
    const functionKey = localFunctionCredentials();
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
        ...(engine && {
          opensearch: {
            endpoint: engine.endpoint,
            version: engine.version,
            indexPrefix,
            // A copy of the key alone: the AWS SDK adds its bookkeeping to a credentials object it is given.
            credentials: { accessKeyId: functionKey.accessKeyId, secretAccessKey: functionKey.secretAccessKey },
          },
        }),
        pid: process.pid,
      },
      home,
    );
    console.log(`CXM API listening on ${gateway.url}`);
    console.log(
      `Functions:   ${functions}${runtime === 'sources' ? ' (CXM_RUNTIME=bundles serves the deployable bundles)' : ''}`,
    );
    console.log(`Recordings:  ${s3Endpoint}/${recordingsBucket} (local S3; VOC uploads go here)`);
    console.log(reportingLine(engine, sync, syncMs));
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
