/**
 * `throughput`: requests per second and latency of GET current document and POST note through
 * the local gateway (route match, cached authorizer, proxy event, chain, handler) against a bare
 * node:http server making the same DynamoDB call on the same DynamoDB Local. autocannon drives
 * both over loopback from this process; each server runs in a process of its own. Runs alternate
 * between the two, and the ratio is the median of the paired runs' ratios.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { BENCH_ROUTES, type BenchRoute } from './bench-requests.ts';
import { atLeast, type Goal, median, pairedRatio, round } from './bench-stats.ts';

const GOAL_RATIO = 0.7;
const SERVER_SCRIPT = fileURLToPath(new URL('./start-bench-server.ts', import.meta.url));

export interface BenchServer {
  url: string;
  stop(): void;
}

/**
 * Starts one side in its own process, with the bench's environment and `env` on top; `track`
 * hears of the child so the bench can kill it on exit.
 */
export async function startBenchServer(
  mode: 'gateway' | 'webhooks' | 'bare',
  track: (child: ChildProcess) => void,
  env: NodeJS.ProcessEnv = {},
): Promise<BenchServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT, mode], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  track(child);
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`the ${mode} bench server exited (code ${code}) before it listened`)),
    );
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
  });
  return { url, stop: () => void child.kill('SIGTERM') };
}

interface RunFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

async function load(
  url: string,
  route: BenchRoute,
  key: string,
  seconds: number,
  connections: number,
): Promise<RunFigures> {
  const result = await autocannon({
    url: `${url}${route.path}`,
    method: route.method,
    headers: {
      Authorization: `Bearer ${key}`,
      Accept: 'application/json',
      ...(route.body !== undefined && { 'Content-Type': 'application/json' }),
    },
    ...(route.body !== undefined && { body: route.body }),
    connections,
    duration: seconds,
  });
  // A figure of refusals or failures would measure the wrong thing.
  const expected = result.statusCodeStats?.[`${route.status}`]?.count ?? 0;
  if (result.errors > 0 || result.non2xx > 0 || expected === 0) {
    throw new Error(
      `${route.id} at ${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${expected} x ${route.status}`,
    );
  }
  return { rps: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

export interface ThroughputEntry {
  route: string;
  gateway: RunFigures;
  bare: RunFigures;
  /** Median over paired runs of gateway rps / bare rps. */
  ratio: number;
  goal: Goal;
}

export interface ThroughputReport {
  connections: number;
  seconds: number;
  rounds: number;
  routes: ThroughputEntry[];
}

function medianFigures(runs: readonly RunFigures[]): RunFigures {
  return {
    rps: round(median(runs.map((run) => run.rps)), 0),
    p50Ms: round(median(runs.map((run) => run.p50Ms)), 1),
    p99Ms: round(median(runs.map((run) => run.p99Ms)), 1),
  };
}

export async function measureThroughput(
  servers: { gateway: string; bare: string },
  key: string,
  options: { seconds: number; rounds: number; connections: number },
  progress: (message: string) => void,
): Promise<ThroughputReport> {
  const routes: ThroughputEntry[] = [];
  for (const route of BENCH_ROUTES) {
    progress(`throughput: ${route.id}, warming up`);
    await load(servers.gateway, route, key, 1, options.connections);
    await load(servers.bare, route, key, 1, options.connections);
    const gateway: RunFigures[] = [];
    const bare: RunFigures[] = [];
    for (let round_ = 0; round_ < options.rounds; round_++) {
      progress(`throughput: ${route.id}, round ${round_ + 1} of ${options.rounds}`);
      const sides = round_ % 2 === 0 ? (['gateway', 'bare'] as const) : (['bare', 'gateway'] as const);
      for (const side of sides) {
        const figures = await load(servers[side], route, key, options.seconds, options.connections);
        (side === 'gateway' ? gateway : bare).push(figures);
      }
    }
    const ratio = pairedRatio(
      gateway.map((run) => run.rps),
      bare.map((run) => run.rps),
    );
    routes.push({
      route: route.id,
      gateway: medianFigures(gateway),
      bare: medianFigures(bare),
      ratio: round(ratio),
      goal: atLeast(ratio, GOAL_RATIO),
    });
  }
  return { connections: options.connections, seconds: options.seconds, rounds: options.rounds, routes };
}
