/**
 * `warmOverhead`: what our chain (log context, authorization, validation, body parsing, error
 * mapping, headers, serialisation) adds per warm request, in process, over a bare function making
 * the same store call. Both sides reach the real DynamoDB client, whose HTTP layer answers from a
 * canned response: the SDK's own work (serialise, sign, parse) stays in both, the network in
 * neither, so the difference is the chain's alone.
 *
 * Each request is invoked as Lambda's runtime invokes it, its event fetched from a stand-in of the
 * Runtime API and its answer posted back (runtime-api-stand-in.ts), and only the handler's CPU is
 * counted. Run back to back instead, the requests find the SDK's working set still in the CPU's
 * caches, where the chain's own time lets it go: the bare function's own store call takes tens of
 * µs longer after a busy loop or an idle wait of the chain's length. No Lambda function runs its
 * requests so; the section prints that ratio too ("back to back").
 *
 * The bench runs each route in child processes of its own on Lambda's Node (`measureWarmOverheadOn`,
 * test/bench/warm-overhead-process.ts), not in its own process on this machine's: Lambda runs one
 * function per route, so no other route's requests shape what the JIT makes of the chain.
 */
import type { ChildProcess } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { PROJECT_ROOT } from '#infra/project-root';
import { routeById } from '#shared/api/route-table';
import { IDEMPOTENCY_KEY_HEADER } from '#shared/domain/idempotency/idempotency-key';
import { requestFingerprint } from '#shared/domain/idempotency/request-fingerprint';
import { buildNote } from '#shared/domain/notes/build-note';
import { newNoteId } from '#shared/domain/notes/new-note-id';
import { recordAnswer } from '#shared/http/idempotent-answer';
import { documentClient } from '#shared/store/dynamo-client';
import { conversationsStore, documentsStore, idempotencyLedger } from '#shared/store/function-stores';
import {
  BENCH_COLLECTION,
  BENCH_DOC_ID,
  BENCH_DOCUMENT,
  BENCH_ROUTES,
  BENCH_TENANT,
  type BenchRoute,
  benchContext,
  benchEvent,
  KEYED_NOTE_ROUTE,
} from './bench-requests.ts';
import { atMost, type Goal, median, pairedDifference, pairedRatio, round } from './bench-stats.ts';
import { type CpuProfile, type WarmProfile, warmProfile } from './cpu-profile-summary.ts';
import { runSectionProcess } from './run-section-process.ts';
import { type RuntimeApi, startRuntimeApi } from './runtime-api-stand-in.ts';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** The chain's request may cost at most this much more CPU than the bare function's, as a ratio. */
const GOAL_RATIO = 1.1;
const CANNED_MIDDLEWARE = 'benchCannedResponse';

/** DynamoDB's answers by operation (the `X-Amz-Target` of the request). */
const CANNED_BODIES: Record<string, string> = {
  GetItem: JSON.stringify({
    Item: {
      pk: { S: `${BENCH_TENANT}#${BENCH_COLLECTION}` },
      sk: { S: BENCH_DOC_ID },
      data: { S: JSON.stringify(BENCH_DOCUMENT) },
      version: { N: '1' },
    },
  }),
  TransactWriteItems: '{}',
};

/** Answers the process's DynamoDB calls from CANNED_BODIES, below the SDK's parsing; returns the undo. */
function answerFromCannedBodies(): () => void {
  const stack = documentClient().middlewareStack;
  stack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      const operation = request.headers?.['x-amz-target']?.split('.')[1];
      const body = operation === undefined ? undefined : CANNED_BODIES[operation];
      if (body === undefined) return next(args);
      return {
        response: {
          statusCode: 200,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Buffer.from(body),
        },
      };
    },
    // Innermost: after serialising and signing, where the HTTP handler would send the request.
    { step: 'deserialize', priority: 'low', name: CANNED_MIDDLEWARE },
  );
  return () => void stack.remove(CANNED_MIDDLEWARE);
}

/**
 * What the route's function does without the chain: the same store call, a plain answer. A keyed
 * note's store call records the answer under the key, as the chain's does.
 */
function bareHandler(route: BenchRoute): ProxyHandler {
  if (route.id === 'getCurrentDocument') {
    const documents = documentsStore();
    return async (event) => {
      const { tenantId, collection, docId } = event.pathParameters ?? {};
      const json = (await documents.read(tenantId!, collection!, docId!))?.json;
      return json === undefined ? { statusCode: 404, body: '' } : { statusCode: 200, body: json };
    };
  }
  const conversations = conversationsStore();
  const ledger = idempotencyLedger();
  const template = routeById(route.id).path;
  return async (event) => {
    const pathParameters = (event.pathParameters ?? {}) as Record<string, string>;
    const parsed = JSON.parse(event.body ?? '') as { body: string };
    const now = new Date();
    const note = buildNote(newNoteId(now.getTime()), now);
    const answer = JSON.stringify({ note });
    // A keyed note's store call writes the answer's record too, under the key and the request's fingerprint.
    const key = event.headers[IDEMPOTENCY_KEY_HEADER];
    const claim =
      key === undefined
        ? undefined
        : {
            key,
            fingerprint: requestFingerprint({
              method: event.httpMethod,
              pathTemplate: template,
              pathParameters,
              body: parsed,
            }),
          };
    const record = recordAnswer(ledger, claim, () => ({ status: 201, bodyText: answer }));
    const outcome = await conversations.addNote(
      pathParameters.tenantId!,
      pathParameters.conversationId!,
      { ...note, body: parsed.body },
      now,
      { record },
    );
    return outcome.kind === 'added' ? { statusCode: 201, body: answer } : { statusCode: 409, body: '' };
  };
}

/** A warm request must answer as the route does, or the section would time an error path. */
function expectStatus(result: APIGatewayProxyResult, status: number): void {
  if (result.statusCode !== status)
    throw new Error(`warm overhead: expected ${status}, got ${result.statusCode}: ${result.body}`);
}

/**
 * CPU time of one call (user + system, µs), averaged over `count` sequential calls. CPU time
 * rather than wall time: a batch preempted by another process would otherwise count the wait.
 */
async function timeCalls(
  handler: ProxyHandler,
  event: APIGatewayProxyEvent,
  context: Context,
  status: number,
  count: number,
): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    // The chain marks the event as it goes; each call gets its own, as each invocation does.
    const result = await handler({ ...event }, context);
    expectStatus(result, status);
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / count;
}

/**
 * CPU time of one invocation's handler (user + system, µs), averaged over `count` invocations made
 * as Lambda's runtime makes them: the event fetched from `runtime` before each, the answer posted
 * after it; neither exchange is counted.
 */
async function timeInvocations(
  handler: ProxyHandler,
  runtime: RuntimeApi,
  context: Context,
  status: number,
  count: number,
): Promise<number> {
  let cpuUs = 0;
  for (let i = 0; i < count; i++) {
    const { event, requestId } = await runtime.next();
    const started = process.cpuUsage();
    const result = await handler(event, context);
    const { user, system } = process.cpuUsage(started);
    cpuUs += user + system;
    expectStatus(result, status);
    await runtime.respond(requestId, result);
  }
  return cpuUs / count;
}

/** `count` calls of a handler with the route's event, as timeCalls or timeInvocations time them. */
type TimedCalls = (handler: ProxyHandler, count: number) => Promise<number>;

/** `rounds` batches of each side, each batch's CPU per call. */
async function alternatingRounds(
  calls: TimedCalls,
  chain: ProxyHandler,
  bare: ProxyHandler,
  { rounds, batch }: { rounds: number; batch: number },
): Promise<{ chainTimes: number[]; bareTimes: number[] }> {
  const chainTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let round_ = 0; round_ < rounds; round_++) {
    // Alternate which goes first, so neither always runs right after a collection.
    if (round_ % 2 === 0) {
      chainTimes.push(await calls(chain, batch));
      bareTimes.push(await calls(bare, batch));
    } else {
      bareTimes.push(await calls(bare, batch));
      chainTimes.push(await calls(chain, batch));
    }
  }
  return { chainTimes, bareTimes };
}

const STORE_CALL_TIMER = 'benchStoreCallTimer';

/**
 * Times the process's DynamoDB calls from their outermost step (wall µs, no I/O with the canned
 * answers), summed into `into.us`; returns the undo.
 */
function timeStoreCalls(into: { us: number }): () => void {
  const stack = documentClient().middlewareStack;
  stack.add(
    (next) => async (args) => {
      const started = process.hrtime.bigint();
      try {
        return await next(args);
      } finally {
        into.us += Number(process.hrtime.bigint() - started) / 1000;
      }
    },
    { step: 'initialize', priority: 'high', name: STORE_CALL_TIMER },
  );
  return () => void stack.remove(STORE_CALL_TIMER);
}

/** Rounds of the store-call pass, after the measured rounds (its timer stays out of those). */
const STORE_CALL_ROUNDS = 40;

/**
 * How long the store call itself takes, made from the chain and from the bare function: the same
 * call, so any difference is what running beside the chain does to the SDK's own work.
 */
async function storeCallUs(
  calls: TimedCalls,
  chain: ProxyHandler,
  bare: ProxyHandler,
  batch: number,
): Promise<WarmOverheadEntry['storeCallUs']> {
  const timer = { us: 0 };
  const undo = timeStoreCalls(timer);
  try {
    const timed: TimedCalls = async (handler, count) => {
      timer.us = 0;
      await calls(handler, count);
      return timer.us / count;
    };
    const { chainTimes, bareTimes } = await alternatingRounds(timed, chain, bare, { rounds: STORE_CALL_ROUNDS, batch });
    return {
      chain: round(median(chainTimes), 1),
      bare: round(median(bareTimes), 1),
      extra: round(pairedDifference(chainTimes, bareTimes), 1),
    };
  } finally {
    undo();
  }
}

/** Calls profiled per side of a route that missed its goal, and the slices they are made in. */
const PROFILED_CALLS = 2000;
const PROFILED_SLICES = 20;

/** A CPU profile of `work` in this process (the inspector's sampling profiler, 50 µs samples). */
async function profiled(work: () => Promise<unknown>): Promise<CpuProfile> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 50 });
    await session.post('Profiler.start');
    await work();
    return (await session.post('Profiler.stop')).profile;
  } finally {
    session.disconnect();
  }
}

/**
 * Where the chain's extra goes: both sides profiled in slices that alternate as the rounds do, so
 * that the machine's drift over the profiling falls on both alike.
 */
async function profileSides(calls: TimedCalls, chain: ProxyHandler, bare: ProxyHandler): Promise<WarmProfile> {
  const slices = new Map<ProxyHandler, CpuProfile[]>([
    [chain, []],
    [bare, []],
  ]);
  const profiledCalls: TimedCalls = async (handler, count) => {
    slices.get(handler)!.push(await profiled(() => calls(handler, count)));
    return 0;
  };
  const batch = PROFILED_CALLS / PROFILED_SLICES;
  await alternatingRounds(profiledCalls, chain, bare, { rounds: PROFILED_SLICES, batch });
  return warmProfile(slices.get(chain)!, slices.get(bare)!, PROFILED_CALLS);
}

export interface WarmOverheadEntry {
  route: string;
  /** Median per-request CPU time through the function's handler (chain included), µs. */
  chainUs: number;
  /** The same for the bare function, µs. */
  bareUs: number;
  /** Median over rounds of (chain - bare), µs. */
  overheadUs: number;
  /** The store call's own wall time per request, µs, made from the chain and from the bare function (median of rounds). */
  storeCallUs: {
    chain: number;
    bare: number;
    /** Median over rounds of (chain - bare). */
    extra: number;
  };
  /** Median over rounds of (chain / bare): over the section's processes, the median process's. */
  ratio: number;
  /** Each process's ratio, in the order they ran: how far runs of the same code stray. */
  ratios: number[];
  /**
   * The ratio with the requests run back to back instead (median over rounds of chain / bare), as
   * no Lambda function runs them: the SDK's working set stays in the CPU's caches between calls.
   */
  backToBack: number;
  goal: Goal;
  /** Where the chain's extra CPU goes, from a profile of each side: routes that missed their goal. */
  profile?: WarmProfile;
}

export interface WarmOverheadReport {
  /** Processes a route, each measuring that route alone; each route's figures are its median process's. */
  processes: number;
  rounds: number;
  batch: number;
  routes: WarmOverheadEntry[];
}

/** The routes the section measures, by label: the keyed note beside the plain one (its bare function records its answer as the chain does). */
const WARM_ROUTES: readonly BenchRoute[] = [...BENCH_ROUTES, KEYED_NOTE_ROUTE];
const labelOf = (route: BenchRoute) => route.label ?? route.id;

/**
 * One route's warm overhead in this process. The process environment must point at the tables
 * already (handlers read it at import).
 */
export async function measureWarmOverhead(
  options: { rounds: number; batch: number; route: string },
  progress: (message: string) => void,
): Promise<WarmOverheadEntry> {
  const route = WARM_ROUTES.find((candidate) => labelOf(candidate) === options.route);
  if (!route) throw new Error(`warm overhead: no bench route ${options.route}`);
  const undo = answerFromCannedBodies();
  const context = benchContext();
  const event = benchEvent(route);
  const runtime = await startRuntimeApi(event);
  try {
    progress(`warm overhead: ${labelOf(route)}`);
    const module = (await import(pathToFileURL(join(PROJECT_ROOT, routeById(route.id).handler)).href)) as {
      handler: ProxyHandler;
    };
    const chain = module.handler;
    const bare = bareHandler(route);
    const backToBack: TimedCalls = (handler, count) => timeCalls(handler, event, context, route.status, count);
    const calls: TimedCalls = (handler, count) => timeInvocations(handler, runtime, context, route.status, count);
    // Warm-up: JIT, the SDK's first-call work (endpoint, credentials), the chain's lazy state.
    await backToBack(chain, 1000);
    await backToBack(bare, 1000);
    await calls(chain, 200);
    await calls(bare, 200);
    const { chainTimes, bareTimes } = await alternatingRounds(calls, chain, bare, options);
    const ratio = round(pairedRatio(chainTimes, bareTimes));
    const goal = atMost(ratio, GOAL_RATIO);
    const hot = await alternatingRounds(backToBack, chain, bare, options);
    const storeCall = await storeCallUs(calls, chain, bare, options.batch);
    return {
      route: labelOf(route),
      chainUs: round(median(chainTimes), 1),
      bareUs: round(median(bareTimes), 1),
      overheadUs: round(pairedDifference(chainTimes, bareTimes), 1),
      storeCallUs: storeCall,
      ratio,
      ratios: [ratio],
      backToBack: round(pairedRatio(hot.chainTimes, hot.bareTimes)),
      goal,
      ...(!goal.met && { profile: await profileSides(calls, chain, bare) }),
    };
  } finally {
    runtime.close();
    undo();
  }
}

const PROCESS_SCRIPT = fileURLToPath(new URL('./warm-overhead-process.ts', import.meta.url));

/**
 * One route's figures from its processes' (each measured that route alone): the entry of the
 * process whose ratio is the median, with every process's ratio beside it. What the JIT makes of
 * the chain differs from process to process, more than rounds within one differ.
 *
 * @example medianProcess([first, second, third]).ratios // [1.2, 1.31, 1.16]
 */
export function medianProcess(entries: readonly WarmOverheadEntry[]): WarmOverheadEntry {
  if (entries.length === 0) throw new Error('warm overhead: no process reported');
  const byRatio = [...entries].sort((a, b) => a.ratio - b.ratio);
  const middle = byRatio[(byRatio.length - 1) >> 1]!;
  return { ...middle, ratios: entries.map((entry) => entry.ratio) };
}

/**
 * Runs the section on `node` (run-section-process.ts): `processes` child processes a route, one
 * after the other, each measuring one route, the routes taking turns so that the machine's drift
 * spreads over all of them.
 */
export async function measureWarmOverheadOn(
  node: string,
  options: { processes: number; rounds: number; batch: number },
  startedAtMs: number,
  track: (child: ChildProcess) => void,
): Promise<WarmOverheadReport> {
  const { processes, rounds, batch } = options;
  const entries = new Map<string, WarmOverheadEntry[]>(WARM_ROUTES.map((route) => [labelOf(route), []]));
  for (let i = 0; i < processes; i++)
    for (const [route, measured] of entries)
      measured.push(
        await runSectionProcess<WarmOverheadEntry>(
          node,
          [],
          PROCESS_SCRIPT,
          { rounds, batch, route, startedAtMs },
          track,
        ),
      );
  return { processes, rounds, batch, routes: [...entries.values()].map(medianProcess) };
}
