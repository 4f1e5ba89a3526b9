/**
 * The local OpenSearch engine: one node of the version the stages run, in a JVM of its own, from the
 * jars `npm install` resolved (engine-installation.ts). It listens on 127.0.0.1 only and answers
 * only requests signed with SigV4 (service `es`) under the one key it is started with: the local
 * stack's own (SignedNetty4Plugin.java checks each signature; its node transport refuses every
 * connection). Its data is under a folder, or a temporary one deleted when it stops. It dies with
 * the process that started it (local-programs.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IndexShards } from '#shared/settings/opensearch-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { createOpenSearchClient, type OpenSearchClient } from '#shared/store/opensearch-client';
import type { LocalCredentials } from '../local-identity.ts';
import { checkJava, javaCommand, StartupError, spawnTiedToParent } from '../local-programs.ts';
import { ENGINE_MAIN_CLASS, requireInstalledEngine } from './engine-installation.ts';

/** One node: every index has one primary and no replica (which it could not place). */
export const LOCAL_INDEX_SHARDS: IndexShards = { primaries: 1, replicas: 0 };

/**
 * Points this process's functions at the engine, as CDK points a stage's at its domain: the lists
 * search it, the indexer writes to it (through the stream readers serve-gateway.ts runs for it).
 *
 * @example pointAtLocalOpenSearch(engine.endpoint, reportingIndexPrefix(LOCAL_STAGE));
 */
export function pointAtLocalOpenSearch(endpoint: string, indexPrefix: string, env = process.env): void {
  env[FUNCTION_ENV.reportingBackend] = 'opensearch';
  env[FUNCTION_ENV.opensearchEndpoint] = endpoint;
  env[FUNCTION_ENV.opensearchIndexPrefix] = indexPrefix;
  env[FUNCTION_ENV.opensearchPrimaryShards] = String(LOCAL_INDEX_SHARDS.primaries);
  env[FUNCTION_ENV.opensearchReplicas] = String(LOCAL_INDEX_SHARDS.replicas);
}

export interface LocalOpenSearchOptions {
  /** Where the node keeps its data and logs (`$CXM_HOME/opensearch`); default a temporary folder, deleted at stop. */
  dataDir?: string;
  /** The only key whose signatures it accepts. */
  credentials: LocalCredentials;
  /** The region of the signatures' scope. */
  region: string;
  /** The JVM's heap, as `-Xmx` takes it (`512m`, `2g`). */
  heap?: string;
  /** Default: javaCommand(). */
  java?: string;
  /** The HTTP port on 127.0.0.1; default 0, a free one. */
  port?: number;
  /**
   * The JVM's C1 compiler only: the node starts on less CPU, and bulk loads and deep searches run
   * slower. The tests and `npm start` take it; the bench does not.
   */
  quickStart?: boolean;
}

export interface LocalOpenSearch {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** What the node answers as its version. */
  version: string;
  /** The JVM's process id. */
  pid: number | undefined;
  /** From spawning the JVM to its first answered request. */
  startMs: number;
  /** A client of the node, signing with its key. */
  client: OpenSearchClient;
  /** Closes the node (its data flushed), then deletes a temporary folder. */
  stop(): Promise<void>;
  /** Kills the JVM at once; for `exit` handlers, where nothing asynchronous runs. */
  killNow(): void;
}

/** The JVM's options: OpenSearch's own for its embedded libraries, a fixed heap, a collector that leaves the CPU to the tests. */
function jvmOptions(heap: string, quickStart: boolean, home: string): string[] {
  return [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    // Little to collect on a heap this size; serial takes no CPU from the tests beside it.
    '-XX:+UseSerialGC',
    ...(quickStart ? ['-XX:TieredStopAtLevel=1'] : []),
    '-XX:-OmitStackTraceInFastThrow',
    '-Dfile.encoding=UTF-8',
    '-Djna.nosys=true',
    '-Dlog4j2.disable.jmx=true',
    '-Dio.netty.noUnsafe=true',
    '-Dio.netty.noKeySetOptimization=true',
    '-Dio.netty.recycler.maxCapacityPerThread=0',
    `-Djava.io.tmpdir=${join(home, 'tmp')}`,
  ];
}

/** One node on loopback, alone in its cluster: no discovery, no replicas to place, no disk watermarks. */
function nodeSettings(home: string, port: number): string[] {
  return Object.entries({
    'cluster.name': 'cxm-local',
    'node.name': 'cxm-local',
    'path.home': home,
    'path.data': join(home, 'data'),
    'path.logs': join(home, 'logs'),
    'discovery.type': 'single-node',
    'network.host': '127.0.0.1',
    'http.port': String(port),
    'transport.port': '0',
    // Writes logs/http.ports once it listens: how a port of 0 is found.
    'node.portsfile': 'true',
    'cluster.routing.allocation.disk.threshold_enabled': 'false',
  }).map(([name, value]) => `${name}=${value}`);
}

/** Waits for the ports file, or the JVM's exit, or the deadline. */
async function httpAddress(child: ChildProcess, portsFile: string, output: () => string): Promise<string> {
  const deadline = Date.now() + 90_000;
  while (!existsSync(portsFile)) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new StartupError(
        `the OpenSearch engine exited during start (${child.exitCode ?? child.signalCode}): ${output().trim()}`,
      );
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new StartupError(`the OpenSearch engine did not listen within 90 s: ${output().trim()}`);
    }
    await sleep(100);
  }
  // Written whole, then renamed into place: the first line is the HTTP address.
  return readFileSync(portsFile, 'utf8').split('\n')[0]!.trim();
}

/**
 * Starts a node and waits until it answers a signed request.
 *
 * @example const engine = await startLocalOpenSearch({ credentials, region: 'us-east-1' });
 */
export async function startLocalOpenSearch(options: LocalOpenSearchOptions): Promise<LocalOpenSearch> {
  const { classPath } = requireInstalledEngine();
  const java = options.java ?? javaCommand();
  checkJava(java, 'the OpenSearch engine');
  const temporary = options.dataDir === undefined;
  const home = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cxm-opensearch-'));
  for (const dir of [home, join(home, 'logs'), join(home, 'tmp')]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  const portsFile = join(home, 'logs', 'http.ports');
  // A former run's: this node writes its own once it listens.
  rmSync(portsFile, { force: true });
  const started = performance.now();
  const child = spawnTiedToParent(
    java,
    [
      ...jvmOptions(options.heap ?? '512m', options.quickStart ?? true, home),
      '-cp',
      classPath,
      ENGINE_MAIN_CLASS,
      ...nodeSettings(home, options.port ?? 0),
    ],
    {
      cwd: home,
      // The key reaches the JVM in its environment, which only its user can read: never on its command line.
      env: {
        ...process.env,
        CXM_OPENSEARCH_ACCESS_KEY_ID: options.credentials.accessKeyId,
        CXM_OPENSEARCH_SECRET_ACCESS_KEY: options.credentials.secretAccessKey,
        CXM_OPENSEARCH_REGION: options.region,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const removeTemporary = () => {
    if (temporary) rmSync(home, { recursive: true, force: true });
  };
  const killNow = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    removeTemporary();
  };
  try {
    const endpoint = `http://${await httpAddress(child, portsFile, () => output)}`;
    const client = createOpenSearchClient({
      endpoint,
      region: options.region,
      credentials: async () => ({ ...options.credentials }),
      requestTimeoutMs: 60_000,
    });
    // Ready once the cluster state is recovered: every index it holds has its shards (yellow at worst).
    await client.request({
      method: 'GET',
      path: '/_cluster/health',
      query: { wait_for_status: 'yellow', timeout: '50s' },
    });
    const root = (await client.request({ method: 'GET', path: '/' })).body as { version?: { number?: string } };
    return {
      endpoint,
      version: root.version?.number ?? 'unknown',
      pid: child.pid,
      startMs: performance.now() - started,
      client,
      killNow,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          // A node slow to close on a loaded machine still gets to flush; only a hung one is killed.
          const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
          await exited;
          clearTimeout(timer);
        }
        removeTemporary();
      },
    };
  } catch (error) {
    killNow();
    if (error instanceof StartupError) throw error;
    throw new StartupError(
      `the OpenSearch engine did not answer once it listened: ${error instanceof Error ? error.message : String(error)}: ${output.trim()}`,
    );
  }
}
