/**
 * `coldStart`: what a user's first request to a new Lambda environment costs, measured per
 * function. A fresh process of Lambda's Node, with Lambda's options, imports the function's entry
 * as the stack ships it (what Lambda's init does with the handler module: the entry turns on the
 * asset's compile cache and loads the bundle), then answers the function's first request against
 * DynamoDB Local (test/bench/cold-requests.ts); the same asset without its cache goes through the
 * same rounds, and so do the baseline and the peers, bare bundles with the baseline's request. Two
 * figures per row, each the median over rounds of the ratio to the baseline process just before it:
 *
 * - init: the import alone (goal: at most 1.05x, 1.15x for a list of an OpenSearch stage);
 * - cold request: the import plus the first request, which is what the caller waits for (goal,
 *   with the cache, against the bare handler without one: an API function 0.90x, a reporting list
 *   1.0x, MCP 1.3x). Work moved from import to the first request improves the first figure and
 *   not this one.
 *
 * The processes run on Lambda's Node (the pinned binary of infra/lambda-node.ts), since the
 * module loader and V8's parser are what this measures and they change between majors. The ratios
 * are of CPU time (user + system, all threads of the process): preemption by other processes, and
 * the time DynamoDB Local takes to answer, do not count in them, so they hold on a busy machine
 * where wall time does not. Wall times are reported beside them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Module } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { BUNDLE_MODULE } from '#infra/cdk/constructs/compile-cache';
import { LAMBDA_NODE_OPTIONS } from '#infra/lambda-node';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { atMost, type Goal, median, pairedRatio, round } from './bench-stats.ts';
import type { ColdRequest, ColdRequests } from './cold-requests.ts';
import { COMPARED_KINDS, withPeerStandings } from './compare-peers.ts';
import {
  averageColdProfiles,
  bundleSources,
  type CallFrame,
  type ColdProfile,
  type CpuProfile,
  summariseColdProfile,
} from './cpu-profile-summary.ts';
import type { BuiltBundle, BundleKind } from './measure-bundles.ts';

const run = promisify(execFile);

/** Import alone, against the baseline's: a list of an OpenSearch stage carries a search client besides. */
const INIT_GOALS: Partial<Record<BundleKind, number>> = {
  api: 1.05,
  authorizer: 1.05,
  mcp: 1.05,
  'reporting-opensearch': 1.15,
};
/** A cold request's goal, as a ratio to the bare handler's: MCP's, a reporting list's, any other API function's. */
const COLD_REQUEST_GOALS = { mcp: 1.3, list: 1.0, api: 0.9 };

/**
 * The cold-request goal of a bundle's row; none for what serves no API request or is no function of ours.
 *
 * @example coldRequestGoalOf({ kind: 'mcp', ... }) // 1.3
 */
export function coldRequestGoalOf(bundle: Pick<BuiltBundle, 'kind' | 'list'>): number | undefined {
  if (bundle.kind === 'mcp') return COLD_REQUEST_GOALS.mcp;
  if (bundle.list) return COLD_REQUEST_GOALS.list;
  return COMPARED_KINDS.has(bundle.kind as ColdStartEntry['kind']) ? COLD_REQUEST_GOALS.api : undefined;
}

/**
 * The environment a deployed function gets, less what the first requests' arrangement adds (tables,
 * endpoints, credentials, the cursor secret): the stage's reporting backend, the indexer's search
 * settings. Logs and metrics are off, so the process writes only its measurement.
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
    CXM_OPENSEARCH_INDEX_PREFIX: 'cxm-bench-reporting',
    [FUNCTION_ENV.recordingsBucket]: 'cxm-bench-recordings',
  };
}

/**
 * Runs in the fresh process: import, then (given an event) one request through the handler, whose
 * answer (an HTTP status, or an authorizer's effect) must be one of BENCH_ACCEPTED.
 */
const PROBE = `
const cpuMs = (since) => { const { user, system } = process.cpuUsage(since); return (user + system) / 1000; };
let started = performance.now();
let cpu = process.cpuUsage();
const imported = await import(process.argv[1]);
const module = imported.handler ? imported : imported.default;
const init = { wall: performance.now() - started, cpu: cpuMs(cpu) };
let first = null;
if (process.env.BENCH_EVENT) {
  const context = { functionName: 'bench', functionVersion: '$LATEST', awsRequestId: 'bench', invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench', memoryLimitInMB: '1024', logGroupName: 'bench', logStreamName: 'bench', callbackWaitsForEmptyEventLoop: false, getRemainingTimeInMillis: () => 10000, done() {}, fail() {}, succeed() {} };
  const event = JSON.parse(process.env.BENCH_EVENT);
  started = performance.now();
  cpu = process.cpuUsage();
  const result = await module.handler(event, context);
  first = { wall: performance.now() - started, cpu: cpuMs(cpu) };
  const answer = result.statusCode ?? result.policyDocument?.Statement?.[0]?.Effect;
  if (!JSON.parse(process.env.BENCH_ACCEPTED).includes(answer)) throw new Error('first request answered ' + answer + ': ' + (result.body ?? JSON.stringify(result)));
}
process.stdout.write(JSON.stringify({ init, first }), () => process.exit(0));
`;

/** Wall time, and CPU time of the process (all threads): the latter holds on a busy machine. */
interface Timing {
  wall: number;
  cpu: number;
}

interface Sample {
  init: Timing;
  first: Timing | null;
  /** What the entry's init line said of the compile cache, when the log level let it write one. */
  compileCache?: CompileCacheState;
}

type CompileCacheState = 'accepted' | 'rejected' | 'absent';

async function importOnce(
  node: string,
  file: string,
  environment: Record<string, string>,
  nodeOptions: readonly string[] = [],
): Promise<Sample> {
  const { stdout } = await run(
    node,
    [...LAMBDA_NODE_OPTIONS, ...nodeOptions, '--input-type=module', '-e', PROBE, pathToFileURL(file).href],
    { env: environment, timeout: 60_000 },
  );
  const lines = stdout.trim().split('\n');
  const sample = JSON.parse(lines.pop()!) as Sample;
  const init = lines
    .map((line) => JSON.parse(line) as { message?: string; compileCache?: { state: CompileCacheState } })
    .find((line) => line.message === 'init');
  if (init?.compileCache) sample.compileCache = init.compileCache.state;
  return sample;
}

export interface ColdStartEntry {
  function: string;
  /** What the bundle serves (`peer`: another framework's handler, test/bench/peers). */
  kind: Exclude<BundleKind, 'baseline'>;
  /** Median wall time of the import, ms. */
  initMs: number;
  /** Median CPU time of the import, ms. */
  initCpuMs: number;
  /** Median over rounds of (this bundle's import CPU time / the baseline's, imported just before it). */
  ratio: number;
  /** The same with wall times (noisier when other processes compete for the cores). */
  wallRatio: number;
  initGoal?: Goal;
  /** Median wall time of import plus first request, ms (DynamoDB Local's answer included). Absent for the stream functions. */
  coldRequestMs?: number;
  /** Median CPU time of import plus first request, ms. */
  coldRequestCpuMs?: number;
  /** Median over rounds of (this process's import + first request CPU time / the baseline process's). */
  coldRequestRatio?: number;
  /** With the cache, against the bare handler: COLD_REQUEST_GOALS. */
  coldRequestGoal?: Goal;
  /** Ours: what the compile cache did, from the entry's init line. */
  compileCache?: CompileCacheState;
  /** Ours: the same asset without its compile cache, in the same rounds. */
  withoutCache?: {
    initCpuMs: number;
    ratio: number;
    coldRequestCpuMs?: number;
    coldRequestRatio?: number;
  };
  /** Peers only: the framework packages on top of the baseline, with their installed versions. */
  packages?: Record<string, string>;
  /** Where one cold request's CPU goes (cpu-profile-summary.ts): rows that missed their goal, or every row with --cpu-prof. */
  profile?: ColdProfile;
  /** Our request-serving functions, when peers were measured: per peer, whether this cold request's ratio is lower than the peer's. */
  aheadOfPeers?: Record<string, boolean>;
}

export interface ColdStartReport {
  runs: number;
  baselineMs: number;
  baselineCpuMs: number;
  /** The baseline's import plus its first request (a GetItem). */
  baselineColdRequestMs: number;
  baselineColdRequestCpuMs: number;
  functions: ColdStartEntry[];
  /** The baseline's cold request profiled as the rows' were, beside them; absent when no row was. */
  baselineProfile?: ColdProfile;
}

const total = (sample: Sample): Timing => ({
  wall: sample.init.wall + sample.first!.wall,
  cpu: sample.init.cpu + sample.first!.cpu,
});

/** One bundle's samples: as shipped (with the cache, for ours), ours without the cache, and each one's baseline. */
interface Samples {
  own: Sample[];
  uncached: Sample[];
  baseline: Sample[];
}

/**
 * After the rounds, each row whose cold request missed its goal is profiled beside the baseline
 * (`profileColdRequests`); with `profileDir` (--cpu-prof) every row is, and the profiles stay there
 * for Chrome DevTools' Performance panel.
 */
export async function measureColdStart(
  bundles: readonly BuiltBundle[],
  runs: number,
  nodePath: string,
  progress: (message: string) => void,
  requests: ColdRequests,
  profileDir?: string,
): Promise<ColdStartReport> {
  const baseline = bundles.find((bundle) => bundle.kind === 'baseline')!;
  const measured = bundles.filter(
    (bundle): bundle is BuiltBundle & { kind: ColdStartEntry['kind'] } => bundle.kind !== 'baseline',
  );
  const common = { ...functionEnvironment(), ...requests.environment };
  const environmentOf = (bundle: BuiltBundle) => {
    const request: ColdRequest | undefined = requests.requestFor(bundle);
    return {
      ...common,
      ...bundle.environment,
      ...(request && { BENCH_EVENT: request.event, BENCH_ACCEPTED: JSON.stringify(request.accepted) }),
    };
  };
  if (!requests.requestFor(baseline))
    throw new Error('the baseline needs a first request: every cold request is held against it');
  const baselineEnvironment = environmentOf(baseline);
  const environments = new Map(measured.map((bundle) => [bundle.name, environmentOf(bundle)]));
  const samples = new Map<string, Samples>(
    measured.map((bundle) => [bundle.name, { own: [], uncached: [], baseline: [] }]),
  );
  const states = new Map<string, CompileCacheState | undefined>();
  const baselineAll: Sample[] = [];
  // One throwaway round warms the file cache and DynamoDB Local's paths, so the first pair pays for
  // neither; its processes log their init line, which says what the compile cache did.
  await importOnce(nodePath, baseline.file, baselineEnvironment);
  for (const bundle of measured) {
    const logged = { ...environments.get(bundle.name)!, POWERTOOLS_LOG_LEVEL: 'INFO' };
    states.set(bundle.name, (await importOnce(nodePath, bundle.assets?.cached ?? bundle.file, logged)).compileCache);
    if (bundle.assets) await importOnce(nodePath, bundle.assets.uncached, logged);
  }
  for (let round_ = 0; round_ < runs; round_++) {
    progress(`cold start: round ${round_ + 1} of ${runs}`);
    // A different function goes first each round, so none always follows the same neighbour.
    const order = measured.map((_, i) => measured[(i + round_) % measured.length]!);
    for (const bundle of order) {
      const entry = samples.get(bundle.name)!;
      const environment = environments.get(bundle.name)!;
      const base = await importOnce(nodePath, baseline.file, baselineEnvironment);
      entry.baseline.push(base);
      baselineAll.push(base);
      if (!bundle.assets) {
        entry.own.push(await importOnce(nodePath, bundle.file, environment));
        continue;
      }
      // With and without the cache after the same baseline, each first in every other round.
      const { cached, uncached } = bundle.assets;
      const [first, second] = round_ % 2 === 0 ? [cached, uncached] : [uncached, cached];
      const [one, two] = [
        await importOnce(nodePath, first, environment),
        await importOnce(nodePath, second, environment),
      ];
      entry.own.push(first === cached ? one : two);
      entry.uncached.push(first === cached ? two : one);
    }
  }
  const rows = measured.map((bundle) => summarise(bundle, samples.get(bundle.name)!, states.get(bundle.name)));
  // Every row when asked (--cpu-prof), else the rows whose cold request missed its goal.
  const profiled = rows
    .map((row, i) => ({ row, bundle: measured[i]! }))
    .filter(({ row }) => profileDir !== undefined || row.coldRequestGoal?.met === false);
  let baselineProfile: ColdProfile | undefined;
  if (profiled.length > 0) {
    const dir = profileDir ?? mkdtempSync(join(tmpdir(), 'cxm-bench-profiles-'));
    try {
      const profile = (bundle: BuiltBundle) => profileColdRequests(nodePath, bundle, environmentOf(bundle), dir);
      baselineProfile = await profile(baseline);
      for (const { row, bundle } of profiled) {
        progress(`cold start: profiling ${bundle.name}`);
        row.profile = await profile(bundle);
      }
      if (profileDir !== undefined) progress(`cold start: the profiles are in ${profileDir}`);
    } finally {
      if (profileDir === undefined) rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    runs,
    baselineMs: round(median(baselineAll.map((sample) => sample.init.wall)), 1),
    baselineCpuMs: round(median(baselineAll.map((sample) => sample.init.cpu)), 1),
    baselineColdRequestMs: round(median(baselineAll.map((sample) => total(sample).wall)), 1),
    baselineColdRequestCpuMs: round(median(baselineAll.map((sample) => total(sample).cpu)), 1),
    functions: withPeerStandings(rows),
    ...(baselineProfile && { baselineProfile }),
  };
}

/** Profiled cold requests of a row, each in a process of its own, averaged (one profile's parts move by a few ms). */
const PROFILE_RUNS = 3;

/**
 * PROFILE_RUNS cold requests of `bundle` (with its cache, as shipped) under `--cpu-prof`, written
 * into `dir` as `<bundle file>-<n>.cpuprofile`, and their parts averaged.
 */
async function profileColdRequests(
  nodePath: string,
  bundle: BuiltBundle,
  environment: Record<string, string>,
  dir: string,
): Promise<ColdProfile> {
  const file = bundle.assets?.cached ?? bundle.file;
  // An asset's entry and bundle, or the bare bundle; only the bundle's positions are in its source map.
  const own = bundle.assets ? pathToFileURL(dirname(file)).href : pathToFileURL(file).href;
  const bundleUrl = bundle.assets ? `${own}/${BUNDLE_MODULE}` : own;
  const map = bundleSources(bundle.file);
  // The entry compiles the bundle inside the module wrapper (function-entry.cjs), which shifts its first line.
  const shift = bundle.assets ? Module.wrap('').indexOf('\n') : 0;
  const codeOf = ({ url, lineNumber, columnNumber }: CallFrame) => {
    if (url === bundleUrl) return map.packageAt(lineNumber, lineNumber === 0 ? columnNumber - shift : columnNumber);
    // The asset's entry (index.cjs) is ours.
    return url.startsWith(`${own}/`) ? 'project' : undefined;
  };
  const summaries: ColdProfile[] = [];
  for (let run_ = 0; run_ < PROFILE_RUNS; run_++) {
    // The bundle's file name is the row's, made safe for a path (measure-bundles.ts).
    const name = `${basename(bundle.file, '.cjs')}-${run_ + 1}.cpuprofile`;
    const options = ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', dir, '--cpu-prof-name', name];
    await importOnce(nodePath, file, environment, options);
    summaries.push(summariseColdProfile(JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile, codeOf));
  }
  return averageColdProfiles(summaries);
}

/** The import's and the cold request's CPU, as medians and as ratios to the paired baseline. */
function cpuFigures(own: readonly Sample[], baseline: readonly Sample[]) {
  const cold = own.every((sample) => sample.first !== null);
  return {
    initCpuMs: round(median(own.map((sample) => sample.init.cpu)), 1),
    ratio: round(
      pairedRatio(
        own.map((sample) => sample.init.cpu),
        baseline.map((sample) => sample.init.cpu),
      ),
    ),
    ...(cold && {
      coldRequestCpuMs: round(median(own.map((sample) => total(sample).cpu)), 1),
      coldRequestRatio: round(
        pairedRatio(
          own.map((sample) => total(sample).cpu),
          baseline.map((sample) => total(sample).cpu),
        ),
      ),
    }),
  };
}

/** One bundle's row: medians, paired ratios, its cache's state and its goals. */
function summarise(
  bundle: BuiltBundle & { kind: ColdStartEntry['kind'] },
  { own, uncached, baseline }: Samples,
  compileCache: CompileCacheState | undefined,
): ColdStartEntry {
  const { initCpuMs, ratio, coldRequestCpuMs, coldRequestRatio } = cpuFigures(own, baseline);
  const entry: ColdStartEntry = {
    function: bundle.name,
    kind: bundle.kind,
    initMs: round(median(own.map((sample) => sample.init.wall)), 1),
    initCpuMs,
    ratio,
    wallRatio: round(
      pairedRatio(
        own.map((sample) => sample.init.wall),
        baseline.map((sample) => sample.init.wall),
      ),
    ),
  };
  const initGoal = INIT_GOALS[bundle.kind];
  if (initGoal !== undefined) entry.initGoal = atMost(entry.ratio, initGoal);
  if (coldRequestRatio !== undefined) {
    entry.coldRequestMs = round(median(own.map((sample) => total(sample).wall)), 1);
    entry.coldRequestCpuMs = coldRequestCpuMs;
    entry.coldRequestRatio = coldRequestRatio;
    const goal = coldRequestGoalOf(bundle);
    if (goal !== undefined) entry.coldRequestGoal = atMost(coldRequestRatio, goal);
  }
  if (bundle.assets) {
    entry.compileCache = compileCache;
    entry.withoutCache = cpuFigures(uncached, baseline);
  }
  if (bundle.packages) entry.packages = bundle.packages;
  return entry;
}
