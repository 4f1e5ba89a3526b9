/**
 * DynamoDB Local does not outlive the process that started it. A parent killed outright (kill -9,
 * a CI job's timeout, the OOM killer) runs no stop of its own; its JVM still ends, closing its data
 * folder as on a stop, so the next start has the folder to itself and finds what was written.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, type LocalDynamoConnection, startDynamoDbLocal } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { PROJECT_ROOT } from '#infra/project-root';

const home = mkdtempSync(join(tmpdir(), 'cxm-dynamo-lifetime-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(home, { recursive: true, force: true });
});

/** A process that starts DynamoDB Local over `dataDir`, prints the JVM's pid and endpoint, and waits. */
async function startParent(dataDir: string): Promise<{ parent: ChildProcess; pid: number; endpoint: string }> {
  const module = pathToFileURL(join(PROJECT_ROOT, 'infra/local/emulators/dynamodb-local.ts')).href;
  const script = `
    const { startDynamoDbLocal } = await import(${JSON.stringify(module)});
    const store = await startDynamoDbLocal({ dataDir: process.env.STORE_DIR });
    console.log(JSON.stringify({ pid: store.pid, endpoint: store.endpoint }));
    setInterval(() => {}, 60_000);
  `;
  const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, STORE_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(parent);
  let output = '';
  parent.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [line] = (await Promise.race([
    once(parent.stdout!, 'data'),
    once(parent, 'exit').then(() => {
      throw new Error(`the parent exited before its store answered: ${output}`);
    }),
  ])) as [Buffer];
  return { parent, ...(JSON.parse(line.toString()) as { pid: number; endpoint: string }) };
}

/**
 * The fields of /proc/<pid>/stat after the command name (state first, then the parent's pid), or
 * undefined once the process is gone: read in one call, since it may be reaped between two.
 */
function statFields(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
  } catch {
    return undefined;
  }
}

/** Absent, or a zombie nobody has reaped yet, is not running. */
function running(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

const parentOf = (pid: number) => Number(statFields(pid)?.[1]);

const client = ({ endpoint, credentials }: LocalDynamoConnection) =>
  new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: { ...credentials }, maxAttempts: 1 });

const KEY = { id: { S: 'written-before-the-kill' } };

describe.runIf(process.platform === 'linux')('DynamoDB Local started by a process that is killed outright', () => {
  it('ends with it, and the next start over its data folder has the folder to itself and its data', async () => {
    const dataDir = join(home, 'dynamodb');
    const { parent, pid, endpoint } = await startParent(dataDir);
    // The JVM itself is the parent's child (setpriv became java): the signal it gets is its own.
    expect(running(pid)).toBe(true);
    expect(parentOf(pid)).toBe(parent.pid);

    const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as {
      accessKeyId: string;
      secretAccessKey: string;
    };
    const before = client({ endpoint, credentials });
    await before.send(
      new CreateTableCommand({
        TableName: 'lifetime',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await before.send(new PutItemCommand({ TableName: 'lifetime', Item: { ...KEY, note: { S: 'kept' } } }));
    // A read waits its turn behind the write's commit on the emulator's one database thread.
    expect((await before.send(new GetItemCommand({ TableName: 'lifetime', Key: KEY }))).Item).toBeDefined();
    before.destroy();

    parent.kill('SIGKILL');
    await once(parent, 'exit');
    for (let waited = 0; waited < 15_000 && running(pid); waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running(pid), 'the JVM outlived the process that started it').toBe(false);

    const next = await startDynamoDbLocal({ dataDir });
    const after = client(next);
    try {
      expect((await after.send(new GetItemCommand({ TableName: 'lifetime', Key: KEY }))).Item).toEqual({
        ...KEY,
        note: { S: 'kept' },
      });
    } finally {
      after.destroy();
      await next.stop();
    }
  });
});

describe('DynamoDB Local on a picked port', () => {
  it('starts on another one when the port picked free is taken before it binds it', async () => {
    // Bound on every address, as DynamoDB Local binds: the JVM finds it in use.
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '0.0.0.0', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    const picks = [taken];
    const store = await startDynamoDbLocal({ pickPort: async () => picks.shift() ?? freePort() });
    try {
      expect(picks).toEqual([]);
      expect(new URL(store.endpoint).port).not.toBe(String(taken));
    } finally {
      await store.stop();
      squatter.close();
    }
  });
});
