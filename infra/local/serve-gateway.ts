/**
 * Binds the gateway's port first (so a taken port fails at once, before DynamoDB Local starts),
 * then serves once the functions' runtime has started.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { RateLimit } from '#infra/cdk/stage/default-rate-limits';
import { LOCAL_STAGE } from '#infra/stage-names';
import type { WebhookTargetRules } from '#shared/domain/webhooks/webhook-target';
import { commonHeaders } from '#shared/http/response-headers';
import { recordingsBucketName } from '#shared/recording-events';
import { searchesOpenSearch } from '#shared/settings/opensearch-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { webhookDeliveriesStore } from '#shared/store/function-stores';
import { deliveryQueueName, WEBHOOK_DELIVERY, webhookSweepRuleName } from '#shared/webhook-functions';
import { createEventDelivery, type EventDelivery } from './emulators/deliver-events.ts';
import { gateLocalDynamo } from './emulators/local-dynamo-gate.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './emulators/local-identity.ts';
import { StartupError } from './emulators/local-programs.ts';
import { acquireLocalQueue, type LocalQueue } from './emulators/local-queue.ts';
import { acquireLocalS3, type LocalS3 } from './emulators/local-s3.ts';
import { type StreamReaders, type StreamTarget, startStreamReaders } from './emulators/local-streams.ts';
import { acquireLocalTranscribe, type LocalTranscribe } from './emulators/local-transcribe.ts';
import { runSchedules } from './emulators/run-schedules.ts';
import { createLocalGateway } from './gateway/local-gateway.ts';
import { LOCAL_HOST_NAMES, localOrigins } from './gateway/local-origins.ts';
import { createApiDocs } from './gateway/serve-api-docs.ts';
import type { FunctionRuntime, LocalWiring } from './runtime/function-runtime.ts';
import type { LocalLog } from './runtime/local-log.ts';
import { startFunctionRuntime } from './runtime/start-function-runtime.ts';

/** The authorizer cache TTL where neither the caller nor the template says (API Gateway's 60 s in our stacks). */
const DEFAULT_AUTH_CACHE_TTL_SECONDS = 60;

export interface ServeOptions {
  /** Seconds an authorizer result is cached; default: the template's (bundles), else 60. */
  authCacheTtlSeconds?: number;
  rateLimit?: RateLimit;
  /** The stage throttle of each route and method, before the authorizer; default none. */
  stageRateLimit?: RateLimit;
  onFault?: (error: unknown) => void;
  log?: LocalLog;
  /** Where the local S3 keeps recordings (npm start: $CXM_HOME/recordings); default a temporary folder. */
  recordingsDir?: string;
  /** Every scheduled rule (the analysis sweep) runs at this period instead of its rate (CXM_SCHEDULE_SECONDS). */
  scheduleEverySeconds?: number;
  /** Events the bus loses, as EventBridge may lose an AWS service's event: a test's way to lose one. */
  losesEvents?: (event: unknown) => boolean;
  /**
   * Whether the webhooks' fan-out reads the table streams from the start, as the stage's event
   * source mappings do (`npm start`), or not at all (the default: a gateway whose caller asserts
   * no delivery, such as most test files, whose polling of a store many files write to would cost
   * every one of them). Queued tasks (a recover) are delivered either way. `read` also runs the
   * webhook sweeper, on its schedule and once at the start: `npm start` keeps its store but not its
   * queue, and the deliveries the last run left pending are sent without waiting for its first rate.
   */
  webhookStreams?: 'read' | 'off';
}

/** The role the processor passes to Transcribe, as the sources see it (bundles read the template's). */
const LOCAL_TRANSCRIBE_ROLE_ARN = `arn:aws:iam::${LOCAL_ACCOUNT}:role/cxm-${LOCAL_STAGE}-transcribe`;

export interface BoundGateway {
  port: number;
  url: string;
  /**
   * Starts the functions' runtime (`CXM_RUNTIME`) wired to this gateway's S3, Transcribe and queue, and
   * answers requests. Resolves with what serves the functions, for the banner, the authorizer
   * cache TTL in force (the bench reports it beside its authorizer figures), and the wiring.
   */
  serve(options: ServeOptions): Promise<{
    functions: string;
    authCacheTtlSeconds: number;
    s3Endpoint: string;
    recordingsBucket: string;
    wiring: LocalWiring;
  }>;
  /** Resolves once every event delivered so far (recordings arrived, analyses ended) has been processed or given up on. */
  eventsSettled(): Promise<void>;
  /**
   * Resolves once every stream record written so far has been handed to the functions reading the
   * streams (the indexer, the webhooks' fan-out), or given up on; at once when none are read.
   */
  streamsCaughtUp(): Promise<void>;
  close(): Promise<void>;
}

export async function bindGateway(port: number, host = '127.0.0.1'): Promise<BoundGateway> {
  let listener: RequestListener = (_req, res) => {
    res.writeHead(503, { ...commonHeaders(randomUUID()), 'Retry-After': '1' });
    res.end(JSON.stringify({ code: 'ServiceUnavailable', message: 'The local API is starting; retry in a moment.' }));
  };
  const server: Server = createServer((req, res) => listener(req, res));
  // Keep-alive sockets would hold `close()` open; requests are short.
  server.keepAliveTimeout = 1000;
  // Requests Node's HTTP parser refuses (oversized headers, malformed framing) never reach the
  // gateway: answer them in the API's own error shape rather than Node's bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      code: 'BadRequest',
      message: tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
    });
    const headers = Object.entries(commonHeaders(randomUUID())).map(([name, value]) => `${name}: ${value}`);
    socket.end(
      [
        `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}`,
        ...headers,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new StartupError(
              `Port ${port} is already in use. Stop the process using it, or choose another with PORT=<port> (PORT=0 picks a free one).`,
            )
          : error,
      ),
    );
    server.listen(port, host, () => resolve());
  });
  let runtime: FunctionRuntime | undefined;
  let s3: LocalS3 | undefined;
  let releaseGate: (() => Promise<void>) | undefined;
  let transcribe: LocalTranscribe | undefined;
  let events: EventDelivery | undefined;
  let queue: LocalQueue | undefined;
  let streams: StreamReaders[] = [];
  const stops: (() => void)[] = [];
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return {
    port: boundPort,
    url: `http://${host}:${boundPort}`,
    async serve({
      authCacheTtlSeconds,
      rateLimit,
      stageRateLimit,
      onFault,
      log,
      recordingsDir,
      scheduleEverySeconds,
      losesEvents,
      webhookStreams = 'off',
    }) {
      // The store behind its gate first: from here on this process signs with the local functions'
      // own credentials, which the gate, the local S3 and the Transcribe stand-in accept, and which
      // are all an upload URL carries (the store's own key id stays with the gate).
      const gated = await gateLocalDynamo();
      releaseGate = gated.release;
      const { credentials } = gated;
      // The recordings bucket next: the functions learn its endpoint and name from the wiring.
      s3 = await acquireLocalS3({
        bucket: recordingsBucketName(LOCAL_STAGE, LOCAL_ACCOUNT, LOCAL_REGION),
        dataDir: recordingsDir,
        credentials,
      });
      // Amazon Transcribe's stand-in reads the recordings and writes its output through that S3.
      transcribe = await acquireLocalTranscribe({ region: LOCAL_REGION, s3Endpoint: s3.endpoint, credentials });
      const report = (line: string, error?: unknown) => {
        if (log) log.line('warn', `cxm: ${line}${error instanceof Error ? `: ${error.message}` : ''}`);
        else onFault?.(error ?? new Error(line));
      };
      // The queue of webhook delivery tasks.
      queue = await acquireLocalQueue({
        name: deliveryQueueName(LOCAL_STAGE),
        region: LOCAL_REGION,
        credentials,
        // As the stage's mapping hands tasks out: one slow receiver's batch holds back no other.
        maxConcurrency: WEBHOOK_DELIVERY.mapping.maxConcurrency,
        report,
      });
      const wiring: LocalWiring = {
        AWS_ENDPOINT_URL_S3: s3.endpoint,
        [FUNCTION_ENV.recordingsBucket]: s3.bucket,
        AWS_ENDPOINT_URL_TRANSCRIBE: transcribe.endpoint,
        [FUNCTION_ENV.transcribeRoleArn]: LOCAL_TRANSCRIBE_ROLE_ARN,
        AWS_ENDPOINT_URL_SQS: queue.endpoint,
        [FUNCTION_ENV.webhookQueueUrl]: queue.url,
        // Webhook receivers on this machine are allowed here, and only here; never this gateway.
        [FUNCTION_ENV.webhookTargets]: 'local' satisfies WebhookTargetRules,
        [FUNCTION_ENV.apiHosts]: LOCAL_HOST_NAMES.map((host) => `${host}:${boundPort}`).join(','),
      };
      // The functions that check origins accept this gateway's own besides their template's.
      runtime = await startFunctionRuntime({ log, wiring, origins: localOrigins(boundPort) });
      const { routes, authorizer } = runtime;
      const { handlers } = runtime;
      const { webhooks } = runtime;
      if (webhooks) queue.consumeWith(webhooks.deliver);
      const readers: StreamTarget[] = [];
      // Read from the start: endpoints registered before it are delivered to from its first event on.
      if (webhooks && webhookStreams === 'read') readers.push(webhooks.fanOut);
      // A stage that searches OpenSearch runs its indexer on the reporting table's stream: so does this.
      if (searchesOpenSearch()) {
        if (!runtime.indexer)
          throw new StartupError(
            `${FUNCTION_ENV.reportingBackend}=opensearch, but the functions served (${runtime.description}) have no reporting indexer`,
          );
        readers.push(runtime.indexer);
      }
      // One reader per function, as each mapping reads on its own: an indexer retrying through an
      // engine outage holds back no webhook.
      const store = { endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '', credentials };
      streams = readers.map((target) => startStreamReaders(store, LOCAL_REGION, [target], report));
      await Promise.all(streams.map((reader) => reader.ready));
      // The run before's queue was in memory: every pending delivery is made due to the sweeper at
      // its time, for the start's sweep and the next ones to queue.
      if (webhooks && webhookStreams === 'read') await webhookDeliveriesStore().dueAtTheirTime(Date.now());
      const delivery = createEventDelivery(runtime.eventTargets, report, { loses: losesEvents });
      // The webhook sweeper reads every tenant's deliveries and sends what it finds: it runs where the
      // webhooks run as on a stage (the streams read), never in a test's gateway on tables that many
      // files share, whose deliveries it would send from under them.
      const sweepRule = webhookSweepRuleName(LOCAL_STAGE);
      const scheduled = runtime.eventTargets.map((target) => ({
        ...target,
        schedules: target.schedules.filter(({ ruleName }) => webhookStreams === 'read' || ruleName !== sweepRule),
      }));
      events = delivery;
      stops.push(s3.onObjectCreated((event) => delivery.put(event)));
      stops.push(transcribe.onStateChange((event) => delivery.put(event)));
      stops.push(
        runSchedules(scheduled, delivery, {
          region: LOCAL_REGION,
          everyMs: scheduleEverySeconds === undefined ? undefined : scheduleEverySeconds * 1000,
          startNow: webhookStreams === 'read' ? [sweepRule] : [],
        }),
      );
      const ttlSeconds = authCacheTtlSeconds ?? runtime.authorizerCacheTtlSeconds ?? DEFAULT_AUTH_CACHE_TTL_SECONDS;
      const gateway = createLocalGateway({
        routes,
        authorizer,
        handlers,
        authCacheTtlSeconds: ttlSeconds,
        rateLimit,
        stageRateLimit,
        onFault,
      });
      // The OpenAPI document and the reference page are no API operations: no key, no rate limit.
      const apiDocs = createApiDocs();
      listener = (req, res) => {
        if (!apiDocs(req, res)) void gateway(req, res);
      };
      return {
        functions: runtime.description,
        authCacheTtlSeconds: ttlSeconds,
        s3Endpoint: s3.endpoint,
        recordingsBucket: s3.bucket,
        wiring,
      };
    },
    async eventsSettled() {
      // An event's processing may submit an analysis, whose end is one more event: until both rest.
      for (;;) {
        await events?.settled();
        await transcribe?.settled();
        if (!events?.busy() && !transcribe?.busy()) return;
      }
    },
    async streamsCaughtUp() {
      await Promise.all(streams.map((reader) => reader.caughtUp()));
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // No new events first, then the ones under way (an analysis under way ends first: it
      // emits one more), then what runs them, then the stand-in and the S3 it reads.
      for (const stop of stops.splice(0)) stop();
      await Promise.all(streams.map((reader) => reader.stop()));
      await queue?.close();
      await transcribe?.settled();
      await events?.settled();
      await transcribe?.close();
      await s3?.close();
      await runtime?.close();
      await releaseGate?.();
    },
  };
}
