/**
 * DynamoDB Local for the whole run (in memory, DYNAMO_INSTANCES of them: a worker's files use one,
 * test/support/worker-dynamo.ts), with the tables of the shared specs; one OpenSearch engine (in a
 * temporary folder, `inject('opensearch')`), which every file shares as production's stages share
 * a domain, each under tenants (and, where a file changes the layout, an index prefix) of its own;
 * and, for
 * the bundles project, one synthesis of the local stage's cloud assembly (reused across runs while
 * the sources are unchanged: infra/local/runtime/local-assembly.ts). Test files reach them through `workerDynamo()` and
 * `inject('assemblyDir')` (test/support/runtime-setup.ts hands the latter to the bundles project's
 * gateways), and isolate their data by unique tenant ids. The synthesis is not waited for here:
 * it runs while the other projects' files do (the bundles project's files run after theirs,
 * `sequence.groupOrder`), and each bundles file waits for it in runtime-setup.ts, which reports a
 * failed synthesis from `inject('assemblyFailure')`.
 *
 * It also makes the run's folder of recorded AWS calls (`inject('awsCallLog')`): every sources
 * gateway of the run records there what its functions call (infra/local/emulators/record-aws-calls.ts), and
 * the IAM simulation, which runs after every other file, holds each call to the function's policies.
 * And the run's folder of stage assemblies (`inject('stageAssemblies')`): each stage variant the
 * infra tests read is synthesized there once, by the first file that needs it
 * (test/support/stage-templates.ts).
 *
 * Vitest calls this once per project (sources, bundles, iam); all share what the first call started.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import {
  createTables,
  type DynamoDbLocal,
  type LocalDynamoConnection,
  startDynamoDbLocal,
} from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION, type LocalCredentials, newLocalCredentials } from '#infra/local/emulators/local-identity';
import { type LocalOpenSearch, startLocalOpenSearch } from '#infra/local/emulators/opensearch/local-opensearch';
import { functionRuntimeKind } from '#infra/local/runtime/function-runtime';
import { type AssemblyBackend, ensureLocalAssembly, localAssemblyDir } from '#infra/local/runtime/local-assembly';
import { LOCAL_STAGE } from '#infra/stage-names';
import type { TableId } from '#shared/store/table-specs';

/**
 * The run's OpenSearch engine: where it listens, and the one key it accepts, which every test
 * process signs with as its local functions' credentials (test/support/runtime-setup.ts).
 */
export interface OpenSearchFixture {
  endpoint: string;
  credentials: LocalCredentials;
  region: string;
  version: string;
}

/** The store's endpoint and the credentials that select its database, with the test tables. */
export interface DynamoFixture extends LocalDynamoConnection {
  tables: Record<TableId, string>;
}

/**
 * One emulator applies its writes one at a time: with a whole run on one, its busy thread held the
 * workers back mid-run (and starved requests racing a deadline). Two share the load of four workers.
 */
const DYNAMO_INSTANCES = 2;

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's DynamoDB Local instances, each with the test tables; a file uses its worker's (worker-dynamo.ts). */
    dynamoInstances: DynamoFixture[];
    /** The run's OpenSearch engine, shared by every file (test/support/run-opensearch.ts). */
    opensearch: OpenSearchFixture;
    /** The local stage's cloud assembly, which the bundles project serves from once it is complete ('' in the others). */
    assemblyDir: string;
    /** A file that holds why the synthesis of assemblyDir failed, once it has. */
    assemblyFailure: string;
    /** The folder of this run's recorded AWS calls (CXM_AWS_CALL_LOG of every test file). */
    awsCallLog: string;
    /** The folder where this run's stage variants are synthesized, once each (test/support/stage-templates.ts). */
    stageAssemblies: string;
  }
}

/** One of the run's DynamoDB Local instances, and what the tests are given of it. */
interface RunDynamo {
  local: DynamoDbLocal;
  fixture: DynamoFixture;
}

interface Shared {
  dynamo?: Promise<RunDynamo[]>;
  opensearch?: Promise<{ engine: LocalOpenSearch; fixture: OpenSearchFixture }>;
  /** The syntheses of the local stage, by reporting backend: one after the other, as projects ask. */
  assemblies: Map<AssemblyBackend, Promise<void>>;
  /** The last synthesis asked for: the next waits for it, so two never compete for the CPU. */
  lastSynthesis: Promise<void>;
  awsCallLog?: string;
  stageAssemblies?: string;
  /** The run's own folder (the synthesis's failure, should it fail). */
  runDir?: string;
  users: number;
}

// On globalThis: the setup module may be loaded once per project.
const holder = globalThis as { cxmTestSetup?: Shared };
holder.cxmTestSetup ??= { users: 0, assemblies: new Map(), lastSynthesis: Promise.resolve() };
const shared: Shared = holder.cxmTestSetup;

async function startDynamoInstance(): Promise<RunDynamo> {
  const local = await startDynamoDbLocal({});
  try {
    const tables = (await createTables(local, 'test')) as Record<TableId, string>;
    return { local, fixture: { endpoint: local.endpoint, credentials: local.credentials, tables } };
  } catch (error) {
    local.killNow();
    throw error;
  }
}

/** Starts the instances side by side; if one fails, the others are stopped before the error is reported. */
async function startDynamoInstances(): Promise<RunDynamo[]> {
  const started = await Promise.allSettled(Array.from({ length: DYNAMO_INSTANCES }, startDynamoInstance));
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (!failed) return running;
  for (const { local } of running) local.killNow();
  throw failed.reason;
}

/** The run's engine, in a temporary folder, accepting one key made for the run. */
async function startRunOpenSearch(): Promise<{ engine: LocalOpenSearch; fixture: OpenSearchFixture }> {
  const credentials = newLocalCredentials();
  const engine = await startLocalOpenSearch({ credentials, region: LOCAL_REGION });
  return { engine, fixture: { endpoint: engine.endpoint, credentials, region: LOCAL_REGION, version: engine.version } };
}

export async function setup(project: TestProject): Promise<void> {
  shared.users++;
  shared.awsCallLog ??= mkdtempSync(join(tmpdir(), 'cxm-aws-calls-'));
  project.provide('awsCallLog', shared.awsCallLog);
  shared.stageAssemblies ??= mkdtempSync(join(tmpdir(), 'cxm-stage-assemblies-'));
  project.provide('stageAssemblies', shared.stageAssemblies);
  shared.dynamo ??= startDynamoInstances();
  // Beside DynamoDB Local: both JVMs start at once. A missing engine fails the run with what to install.
  shared.opensearch ??= startRunOpenSearch();
  const bundles = functionRuntimeKind(project.config.env?.CXM_RUNTIME) === 'bundles';
  const backend: AssemblyBackend =
    project.config.env?.CXM_REPORTING_BACKEND === 'opensearch' ? 'opensearch' : 'dynamodb';
  const assemblyDir = bundles ? localAssemblyDir(LOCAL_STAGE, backend) : '';
  shared.runDir ??= mkdtempSync(join(tmpdir(), 'cxm-test-run-'));
  const assemblyFailure = join(shared.runDir, `local-assembly-${backend}-failure.txt`);
  if (bundles && !shared.assemblies.has(backend)) {
    const synthesis = shared.lastSynthesis.then(() =>
      ensureLocalAssembly(LOCAL_STAGE, backend, (line) => console.log(`global setup: ${line}`), assemblyDir).then(
        () => undefined,
        (error: unknown) => writeFileSync(assemblyFailure, error instanceof Error ? error.message : String(error)),
      ),
    );
    shared.assemblies.set(backend, synthesis);
    shared.lastSynthesis = synthesis;
  }
  project.provide('assemblyDir', assemblyDir);
  project.provide('assemblyFailure', assemblyFailure);
  const [dynamo, opensearch] = await Promise.allSettled([shared.dynamo, shared.opensearch]);
  if (dynamo.status === 'rejected' || opensearch.status === 'rejected') {
    if (dynamo.status === 'fulfilled') for (const { local } of dynamo.value) local.killNow();
    if (opensearch.status === 'fulfilled') opensearch.value.engine.killNow();
    throw dynamo.status === 'rejected' ? dynamo.reason : (opensearch as PromiseRejectedResult).reason;
  }
  project.provide(
    'dynamoInstances',
    dynamo.value.map(({ fixture }) => fixture),
  );
  project.provide('opensearch', opensearch.value.fixture);
}

export async function teardown(): Promise<void> {
  if (--shared.users > 0) return;
  // A synthesis no bundles file waited for (a run of other projects only) still ends first.
  try {
    await Promise.all(shared.assemblies.values());
    // A start that failed was reported by setup, and what it started was stopped there.
    await Promise.allSettled([
      shared.dynamo?.then((instances) => Promise.all(instances.map(({ local }) => local.stop()))),
      shared.opensearch?.then(({ engine }) => engine.stop()),
    ]);
  } finally {
    for (const folder of [shared.awsCallLog, shared.stageAssemblies, shared.runDir])
      if (folder) rmSync(folder, { recursive: true, force: true });
  }
}
