/**
 * The `sources` runtime (the default: fast to start for development): the authorizer and every
 * route's handler module imported into this process from the TypeScript sources, as the deployed
 * functions import their bundles (the authorizer at start, each route's at its first request).
 * The environment the handlers read is this process's own: what the local runtime put there
 * (point-at-local-dynamo.ts, the local secrets) and the gateway's wiring, which this runtime adds. Each invocation runs in its own invocation scope
 * (invocation-scope.ts), as concurrent invocations do on Lambda, so one request's log keys and
 * metrics never reach another's.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOCAL_STAGE } from '#infra/stage-names';
import { AUTHORIZER_HANDLER } from '#shared/api/route-spec';
import { routes } from '#shared/api/route-table';
import { ANALYSIS_KINDS } from '#shared/domain/voc/analysis-kind';
import { WEBHOOK_SWEEP_MINUTES } from '#shared/domain/webhooks/delivery-sweep';
import {
  ANALYSIS_SWEEP_MINUTES,
  analysisFinishedPattern,
  analysisSweepRuleName,
  RECORDING_PROCESSOR,
  recordingArrivedPattern,
} from '#shared/recording-events';
import { REPORTING_INDEXER } from '#shared/reporting/reporting-indexer';
import { recordingsBucket } from '#shared/settings/recording-settings';
import { tableSpecs } from '#shared/store/table-specs';
import {
  WEBHOOK_DELIVERY,
  WEBHOOK_FAN_OUT,
  WEBHOOK_STREAM_SOURCES,
  WEBHOOK_SWEEP,
  webhookSweepRuleName,
} from '#shared/webhook-functions';
import { PROJECT_ROOT } from '../../project-root.ts';
import { AWS_CALL_LOG_ENV, actingAs, startRecordingAwsCalls } from '../emulators/record-aws-calls.ts';
import type { AuthorizerHandler, ProxyHandler } from '../gateway/local-gateway.ts';
import { type LocalOriginsEnv, withLocalOrigins } from '../gateway/local-origins.ts';
import type { FunctionRuntime, LocalWiring } from './function-runtime.ts';
import { invocationScope } from './invocation-scope.ts';

async function importHandler<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(join(PROJECT_ROOT, entry)).href)) as { handler?: T };
  if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function`);
  return module.handler;
}

/**
 * Imports the authorizer and serves every function from the sources.
 *
 * @example const runtime = await startSourceRuntime({ wiring, origins: localOrigins(port) });
 */
export async function startSourceRuntime(
  wired: { wiring: LocalWiring; origins?: LocalOriginsEnv } = { wiring: {} },
): Promise<FunctionRuntime> {
  // The functions run in this process, so its environment is theirs. The origins are merged, not
  // replaced: one process can serve several gateways (a test file does), each on its own port.
  Object.assign(process.env, wired.wiring);
  if (wired.origins) Object.assign(process.env, withLocalOrigins(process.env, wired.origins));
  // The IAM simulation's record of every AWS call, by function (record-aws-calls.ts).
  const callLog = process.env[AWS_CALL_LOG_ENV];
  if (callLog) startRecordingAwsCalls(callLog);
  const authorize = await importHandler<AuthorizerHandler>(AUTHORIZER_HANDLER);
  const run = await invocationScope();
  const authorizer: AuthorizerHandler = (event) =>
    run(event.requestContext.requestId, () => actingAs('authorizer', () => authorize(event)));
  // Each function's module is imported at its first invocation, as Lambda initializes a function
  // at its first request: a start, or a test file, pays only for the functions it calls. The
  // time spent waiting for that import is given back to the invocation's remaining time, as
  // Lambda's timeout starts after the init phase.
  const handlers = new Map<string, ProxyHandler>(
    routes.map((route) => {
      let imported: Promise<ProxyHandler> | undefined;
      const handler: ProxyHandler = (event, context) =>
        run(context.awsRequestId, () =>
          actingAs(route.id, async () => {
            const budget = context.getRemainingTimeInMillis();
            imported ??= importHandler<ProxyHandler>(route.handler);
            const handle = await imported;
            const deadline = Date.now() + budget;
            return handle(event, { ...context, getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) });
          }),
        );
      return [route.id, handler];
    }),
  );
  // Imported with the first recording's event, not at start: most runs (and test files) never
  // upload one, and the processor brings the S3 and Transcribe clients and the audio reader.
  let processRecording: Promise<(event: unknown) => Promise<unknown>> | undefined;
  // The webhook functions likewise, at their first record or task.
  let fanOut: Promise<NonNullable<FunctionRuntime['webhooks']>['fanOut']['invoke']> | undefined;
  let deliver: Promise<NonNullable<FunctionRuntime['webhooks']>['deliver']> | undefined;
  let sweep: Promise<(event: unknown) => Promise<unknown>> | undefined;
  let indexRows: Promise<NonNullable<FunctionRuntime['indexer']>['invoke']> | undefined;
  return {
    routes,
    authorizer,
    handlers,
    eventTargets: [
      {
        name: RECORDING_PROCESSOR.id,
        // The processor's rules as the stack declares them (infra/cdk/constructs/recordings.ts).
        patterns: [
          recordingArrivedPattern(recordingsBucket()),
          ...ANALYSIS_KINDS.map((kind) => analysisFinishedPattern(LOCAL_STAGE, kind)),
        ],
        schedules: [{ ruleName: analysisSweepRuleName(LOCAL_STAGE), everyMs: ANALYSIS_SWEEP_MINUTES * 60_000 }],
        invoke: (event) =>
          run(randomUUID(), () =>
            actingAs(RECORDING_PROCESSOR.id, async () => {
              processRecording ??= importHandler(RECORDING_PROCESSOR.handler);
              return (await processRecording)(event);
            }),
          ),
      },
      {
        name: WEBHOOK_SWEEP.id,
        // The sweeper's rule as the stack declares it (infra/cdk/constructs/webhooks.ts).
        patterns: [],
        schedules: [{ ruleName: webhookSweepRuleName(LOCAL_STAGE), everyMs: WEBHOOK_SWEEP_MINUTES * 60_000 }],
        invoke: (event) =>
          run(randomUUID(), () =>
            actingAs(WEBHOOK_SWEEP.id, async () => {
              sweep ??= importHandler(WEBHOOK_SWEEP.handler);
              return (await sweep)(event);
            }),
          ),
      },
    ],
    webhooks: {
      fanOut: {
        name: WEBHOOK_FAN_OUT.id,
        batchSize: WEBHOOK_FAN_OUT.mapping.batchSize,
        parallelization: WEBHOOK_FAN_OUT.mapping.parallelizationFactor,
        // The tables' local names, as the functions read them from this process's environment.
        sources: WEBHOOK_STREAM_SOURCES.map((source) => ({
          tableName: process.env[tableSpecs[source.table].envVar] ?? '',
          pattern: source.pattern,
        })),
        invoke: (event) =>
          run(randomUUID(), () =>
            actingAs(WEBHOOK_FAN_OUT.id, async () => {
              fanOut ??= importHandler(WEBHOOK_FAN_OUT.handler);
              return (await fanOut)(event);
            }),
          ),
      },
      deliver: (event) =>
        run(randomUUID(), () =>
          actingAs(WEBHOOK_DELIVERY.id, async () => {
            deliver ??= importHandler(WEBHOOK_DELIVERY.handler);
            return (await deliver)(event);
          }),
        ),
    },
    indexer: {
      name: REPORTING_INDEXER.id,
      sources: [{ tableName: process.env[tableSpecs.reporting.envVar] ?? '', pattern: {} }],
      batchSize: REPORTING_INDEXER.batchSize,
      retry: { attempts: Number.POSITIVE_INFINITY, maxRecordAgeMs: REPORTING_INDEXER.maxRecordAgeHours * 3_600_000 },
      invoke: (event) =>
        run(randomUUID(), () =>
          actingAs(REPORTING_INDEXER.id, async () => {
            indexRows ??= importHandler(REPORTING_INDEXER.handler);
            return (await indexRows)(event);
          }),
        ),
    },
    description: `sources on node ${process.version}`,
    close: async () => undefined,
  };
}
