/**
 * `coldStart`: how long a fresh Node process takes to import each bundle (what Lambda's init does
 * with the handler module), against the baseline bundle. Each round imports the baseline, then
 * the function, each in a new process; the figure is the median over rounds of those paired ratios.
 * The processes run on Lambda's Node (the pinned binary of infra/local/lambda-node.ts), since the
 * module loader and V8's parser are what this measures and they change between majors.
 *
 * The ratio is of CPU time (user + system, all threads of the process): preemption by other
 * processes does not count in it, so it holds on a busy machine where wall time does not. Wall
 * times are reported beside it.
 *
 * The MCP function loads the MCP SDK on its first POST, not at init (shared/mcp), so for it the
 * process also serves one `tools/list` after the import: init plus that first request is what a
 * cold POST costs before any store call, and its goal is on that figure.
 *
 * The peers (test/bench/peers) go through the same rounds as our functions, so their ratios and
 * ours come from one run and can be compared.
 */
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { encodeCaller } from '#shared/auth/authorizer-context';
import { routeById } from '#shared/routes';
import { RECORDINGS_BUCKET_ENV } from '#shared/store/recording-settings';
import { allTableSpecs } from '#shared/store/table-specs';
import { buildProxyEvent } from '#infra/local/build-proxy-event';
import { atMost, median, pairedRatio, round, type Goal } from './bench-stats.ts';
import { withPeerStandings } from './compare-peers.ts';
import type { BuiltBundle, BundleKind } from './measure-bundles.ts';

const run = promisify(execFile);

/** Which figure of a row a goal is on: the import alone, or the import plus the first request. */
export type GoalFigure = 'init' | 'init + first request';

/**
 * Goals against the baseline (issue 13); a reporting list on a stage with a search domain has the
 * OpenSearch client to load, and a goal of its own. The MCP function's is on init plus its first
 * `tools/list`, since it defers its SDK to that request; the stream indexer serves no request and
 * has none; peers are what we compare with, not what we aim at.
 */
const GOALS: Partial<Record<BundleKind, { limit: number; of: GoalFigure }>> = {
  api: { limit: 1.05, of: 'init' },
  authorizer: { limit: 1.05, of: 'init' },
  'reporting-opensearch': { limit: 1.15, of: 'init' },
  mcp: { limit: 2.0, of: 'init + first request' },
};

/**
 * The environment a deployed function gets, with placeholder values: table names, the stage's
 * reporting backend, a cursor secret, the indexer's search settings. Logs and metrics are off, so
 * the process writes only its measurement.
 */
function functionEnvironment(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-west-1',
    // Where Lambda's Node is missing and this machine's older one stands in, the SDK would warn at every import.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_SERVICE_NAME: 'cxm-api',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    CXM_STAGE: 'bench',
    CXM_REPORTING_BACKEND: 'dynamodb',
    CXM_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdefghijklmnop',
    CXM_OPENSEARCH_ENDPOINT: 'https://search-domain.example.com',
    CXM_OPENSEARCH_INDEX_PREFIX: 'cxm-bench-reporting',
    ...Object.fromEntries(allTableSpecs.map((spec) => [spec.envVar, `cxm-bench-${spec.id}`])),
    [RECORDINGS_BUCKET_ENV]: 'cxm-bench-recordings',
  };
}

/** Runs in the fresh process: import, then (given an event) one request through the handler. */
const PROBE = `
const cpuMs = (since) => { const { user, system } = process.cpuUsage(since); return (user + system) / 1000; };
let started = performance.now();
let cpu = process.cpuUsage();
const module = await import(process.argv[1]);
const init = { wall: performance.now() - started, cpu: cpuMs(cpu) };
let first = null;
if (process.env.BENCH_EVENT) {
  const context = { functionName: 'bench', functionVersion: '$LATEST', awsRequestId: 'bench', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:bench', memoryLimitInMB: '1024', logGroupName: 'bench', logStreamName: 'bench', callbackWaitsForEmptyEventLoop: false, getRemainingTimeInMillis: () => 10000, done() {}, fail() {}, succeed() {} };
  started = performance.now();
  cpu = process.cpuUsage();
  const result = await module.handler(JSON.parse(process.env.BENCH_EVENT), context);
  first = { wall: performance.now() - started, cpu: cpuMs(cpu) };
  if (result.statusCode !== 200) throw new Error('first request answered ' + result.statusCode + ': ' + result.body);
}
process.stdout.write(JSON.stringify({ init, first }), () => process.exit(0));
`;

/** A `tools/list` to the MCP function, as the gateway would pass it after the authorizer. */
function mcpToolsListEvent(): string {
  const tenantId = 'bench';
  const keyId = 'benchkey0001';
  const event = buildProxyEvent(
    {
      method: 'POST',
      rawPath: `/api/v1/mcp/tenants/${tenantId}/bots`,
      rawQuery: '',
      rawHeaders: ['Host', '127.0.0.1', 'Content-Type', 'application/json', 'Accept', 'application/json, text/event-stream'],
      body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
      sourceIp: '127.0.0.1',
      host: '127.0.0.1',
      requestId: 'bench-request',
      now: new Date(),
    },
    routeById('mcpBots'),
    { tenantId },
    { ...encodeCaller({ keyId, tenants: [tenantId], scopes: ['mcp:bots.read'] }), principalId: keyId, integrationLatency: 0 },
  );
  return JSON.stringify(event);
}

/** Wall time, and CPU time of the process (all threads): the latter holds on a busy machine. */
interface Timing {
  wall: number;
  cpu: number;
}

interface Sample {
  init: Timing;
  first: Timing | null;
}

async function importOnce(node: string, file: string, environment: Record<string, string>): Promise<Sample> {
  const { stdout } = await run(node, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], { env: environment, timeout: 60_000 });
  return JSON.parse(stdout) as Sample;
}

export interface ColdStartEntry {
  function: string;
  /** What the bundle serves (`peer`: another framework's handler, test/bench/peers). */
  kind: Exclude<BundleKind, 'baseline'>;
  /** Median wall time of the import, ms. */
  initMs: number;
  /** Median CPU time of the import, ms. */
  initCpuMs: number;
  /** Median over rounds of (this bundle's CPU time / the baseline's, imported just before it). */
  ratio: number;
  /** The same with wall times (noisier when other processes compete for the cores). */
  wallRatio: number;
  goal?: Goal;
  /** The figure the goal is on. */
  goalOf?: GoalFigure;
  /** Peers only: the framework packages on top of the baseline, with their installed versions. */
  packages?: Record<string, string>;
  /** Our request-serving functions, when peers were measured: per peer, whether this ratio is lower than the peer's. */
  aheadOfPeers?: Record<string, boolean>;
  /** MCP only: CPU time of init plus the first request (the SDK loads then), ms, and against the baseline's init. */
  firstRequestCpuMs?: number;
  firstRequestRatio?: number;
}

export interface ColdStartReport {
  runs: number;
  baselineMs: number;
  baselineCpuMs: number;
  functions: ColdStartEntry[];
}

export async function measureColdStart(
  bundles: readonly BuiltBundle[],
  runs: number,
  nodePath: string,
  progress: (message: string) => void,
): Promise<ColdStartReport> {
  const baseline = bundles.find((bundle) => bundle.kind === 'baseline')!;
  const measured = bundles.filter((bundle): bundle is BuiltBundle & { kind: ColdStartEntry['kind'] } => bundle.kind !== 'baseline');
  const environment = functionEnvironment();
  const mcpEnvironment = { ...environment, BENCH_EVENT: mcpToolsListEvent() };
  const samples = new Map(measured.map((bundle) => [bundle.name, { own: [] as Sample[], baseline: [] as Timing[] }]));
  const baselineAll: Timing[] = [];
  // One throwaway import warms the file cache, so the first pair does not pay for the disk.
  await importOnce(nodePath, baseline.file, environment);
  for (let round_ = 0; round_ < runs; round_++) {
    progress(`cold start: round ${round_ + 1} of ${runs}`);
    // A different function goes first each round, so none always follows the same neighbour.
    const order = measured.map((_, i) => measured[(i + round_) % measured.length]!);
    for (const bundle of order) {
      const base = await importOnce(nodePath, baseline.file, environment);
      const own = await importOnce(nodePath, bundle.file, bundle.kind === 'mcp' ? mcpEnvironment : { ...environment, ...bundle.environment });
      const entry = samples.get(bundle.name)!;
      entry.baseline.push(base.init);
      entry.own.push(own);
      baselineAll.push(base.init);
    }
  }
  return {
    runs,
    baselineMs: round(median(baselineAll.map((timing) => timing.wall)), 1),
    baselineCpuMs: round(median(baselineAll.map((timing) => timing.cpu)), 1),
    functions: withPeerStandings(measured.map((bundle) => summarise(bundle, samples.get(bundle.name)!))),
  };
}

/** One bundle's row: medians, paired ratios, and its goal on the figure the goal is about. */
function summarise(bundle: BuiltBundle & { kind: ColdStartEntry['kind'] }, { own, baseline }: { own: Sample[]; baseline: Timing[] }): ColdStartEntry {
  const baseCpu = baseline.map((timing) => timing.cpu);
  const ratio = pairedRatio(
    own.map((sample) => sample.init.cpu),
    baseCpu,
  );
  const entry: ColdStartEntry = {
    function: bundle.name,
    kind: bundle.kind,
    initMs: round(median(own.map((sample) => sample.init.wall)), 1),
    initCpuMs: round(median(own.map((sample) => sample.init.cpu)), 1),
    ratio: round(ratio),
    wallRatio: round(
      pairedRatio(
        own.map((sample) => sample.init.wall),
        baseline.map((timing) => timing.wall),
      ),
    ),
  };
  if (bundle.packages) entry.packages = bundle.packages;
  let firstRequestRatio: number | undefined;
  if (own.every((sample) => sample.first !== null)) {
    const firsts = own.map((sample) => sample.init.cpu + sample.first!.cpu);
    firstRequestRatio = pairedRatio(firsts, baseCpu);
    entry.firstRequestCpuMs = round(median(firsts), 1);
    entry.firstRequestRatio = round(firstRequestRatio);
  }
  const goal = GOALS[bundle.kind];
  const figure = goal?.of === 'init + first request' ? firstRequestRatio : ratio;
  if (goal && figure !== undefined) {
    entry.goal = atMost(figure, goal.limit);
    entry.goalOf = goal.of;
  }
  return entry;
}
