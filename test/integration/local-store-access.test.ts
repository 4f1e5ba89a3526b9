/**
 * The local store is not open to the network. DynamoDB Local cannot bind to
 * loopback and checks no signature, so what keeps another host out is that this installation's
 * data sits in the database of a random key id only it holds: these tests are the attack from
 * another machine, made from this one over every address it has. And no local server's
 * credential opens another: the functions sign with credentials of their own, which the local S3
 * and the store's gate check with their secret, and an upload URL carries only their key id.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorDir, freePort, startDynamoDbLocal } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION, type LocalCredentials, newLocalCredentials } from '#infra/local/emulators/local-identity';
import { javaCommand } from '#infra/local/emulators/local-programs';
import { startTestApi, uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const client = (endpoint: string, credentials: LocalCredentials) =>
  new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: { ...credentials }, maxAttempts: 1 });

/** Every address of this machine a neighbour could reach, and loopback. */
function addresses(port: number): string[] {
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry && entry.family === 'IPv4' && !entry.internal)
    .map((entry) => `http://${entry!.address}:${port}`);
  return [`http://127.0.0.1:${port}`, ...external];
}

describe("the local store, reached without this installation's key id", () => {
  it('shows none of the tables, reads no item and writes none where the API would see it', async () => {
    const { endpoint, credentials, tables } = workerDynamo();
    const port = Number(new URL(endpoint).port);
    const ours = client(endpoint, credentials);
    expect((await ours.send(new ListTablesCommand({}))).TableNames).toEqual(
      expect.arrayContaining([tables.keys, tables.conversations]),
    );
    // The old fixed key id, and any other: what an attacker on the network would send.
    for (const intruder of [
      { accessKeyId: 'local', secretAccessKey: 'local' },
      { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'x' },
      newLocalCredentials(),
    ]) {
      for (const address of addresses(port)) {
        const other = client(address, intruder);
        expect((await other.send(new ListTablesCommand({}))).TableNames ?? []).not.toContain(tables.keys);
        await expect(
          other.send(new GetItemCommand({ TableName: tables.keys, Key: { pk: { S: 'x' }, sk: { S: 'x' } } })),
        ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
        await expect(
          other.send(new PutItemCommand({ TableName: tables.keys, Item: { pk: { S: 'x' }, sk: { S: 'x' } } })),
        ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
        other.destroy();
      }
    }
    ours.destroy();
  });
});

/**
 * DynamoDB Local as the previous version ran it (one shared database) over `dataDir`, on a port
 * picked free: picked again when its JVM exits at start, the port taken by another program first.
 */
async function startSharedStore(dataDir: string): Promise<{ old: ChildProcess; before: DynamoDBClient }> {
  const dir = emulatorDir();
  for (let pick = 1; ; pick++) {
    const port = await freePort();
    const old = spawn(
      javaCommand(),
      [
        `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
        '-jar',
        join(dir, 'DynamoDBLocal.jar'),
        '-port',
        String(port),
        '-dbPath',
        dataDir,
        '-sharedDb',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    let exited = false;
    old.once('exit', () => (exited = true));
    const before = client(`http://127.0.0.1:${port}`, { accessKeyId: 'local', secretAccessKey: 'local' });
    for (let i = 0; !exited; i++) {
      try {
        await before.send(new ListTablesCommand({}));
        // Answered while the JVM runs: ours, not another program's on the same port.
        if (!exited) return { old, before };
      } catch (error) {
        if (i > 200) throw error;
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
    before.destroy();
    if (pick >= 3) throw new Error(`the shared DynamoDB Local exited at start ${pick} times`);
  }
}

describe('a persisted store', () => {
  it('keeps its key id beside the data (600, in a 700 folder), runs without -sharedDb and with telemetry off, and adopts the data of a folder from before key ids', async () => {
    // A data folder as the previous version left it: one shared database with a table and an item.
    const dataDir = mkdtempSync(join(tmpdir(), 'cxm-ddb-'));
    dirs.push(dataDir);
    const { old, before } = await startSharedStore(dataDir);
    await before.send(
      new CreateTableCommand({
        TableName: 'kept',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await before.send(new PutItemCommand({ TableName: 'kept', Item: { pk: { S: 'written-before' } } }));
    await before.send(new ListTablesCommand({}));
    before.destroy();
    old.kill('SIGTERM');
    await once(old, 'exit');
    expect(readdirSync(dataDir)).toContain('shared-local-instance.db');
    writeFileSync(join(dataDir, 'unrelated.txt'), 'x');

    const store = await startDynamoDbLocal({ dataDir });
    try {
      const args = readFileSync(`/proc/${store.pid}/cmdline`, 'utf8').split('\0');
      expect(args).toContain('-disableTelemetry');
      expect(args).not.toContain('-sharedDb');
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'))).toEqual(store.credentials);
      expect(readdirSync(dataDir)).not.toContain('shared-local-instance.db');
      const after = client(store.endpoint, store.credentials);
      expect(
        (await after.send(new GetItemCommand({ TableName: 'kept', Key: { pk: { S: 'written-before' } } }))).Item,
      ).toEqual({ pk: { S: 'written-before' } });
      after.destroy();
      const formerKey = client(store.endpoint, { accessKeyId: 'local', secretAccessKey: 'local' });
      expect((await formerKey.send(new ListTablesCommand({}))).TableNames).toEqual([]);
      formerKey.destroy();
    } finally {
      await store.stop();
    }
    // The same key id the next time: the data stays reachable across restarts.
    const again = await startDynamoDbLocal({ dataDir });
    try {
      const reader = client(again.endpoint, again.credentials);
      expect((await reader.send(new ListTablesCommand({}))).TableNames).toEqual(['kept']);
      reader.destroy();
    } finally {
      await again.stop();
    }
  });
});

describe('the credential an upload URL carries', () => {
  it("opens neither the store, nor its gate without the secret, nor the local S3; the store's own key id is in no answer", async () => {
    const api = await startTestApi();
    try {
      const { endpoint, credentials: store, tables } = workerDynamo();
      const tenant = uniqueTenant('leak');
      const { key } = await api.createKey([tenant], ['voc:*']);
      const created = await api.call('POST', `/api/v1/voc/tenants/${tenant}/recordings`, key, {
        body: { fileName: 'a.wav', contentType: 'audio/wav', sizeBytes: 44 },
      });
      expect(created.status).toBe(201);
      expect(created.text).not.toContain(store.accessKeyId);
      const url = new URL((created.json as { upload: { url: string } }).upload.url);
      const [carried] = url.searchParams.get('X-Amz-Credential')!.split('/');
      expect(carried).not.toBe(store.accessKeyId);
      const leaked = { accessKeyId: carried!, secretAccessKey: 'guessed' };
      // DynamoDB Local itself, on every address: the carried key id has a database of its own, empty.
      for (const address of addresses(Number(new URL(endpoint).port))) {
        const other = client(address, leaked);
        expect((await other.send(new ListTablesCommand({}))).TableNames ?? []).not.toContain(tables.keys);
        await expect(
          other.send(new GetItemCommand({ TableName: tables.keys, Key: { keyHash: { S: 'x' } } })),
        ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
        other.destroy();
      }
      // The gate the functions reach the store through checks the signature with the secret.
      const gate = client(process.env.AWS_ENDPOINT_URL_DYNAMODB!, leaked);
      await expect(gate.send(new ListTablesCommand({}))).rejects.toMatchObject({ name: 'InvalidSignatureException' });
      await expect(
        client(process.env.AWS_ENDPOINT_URL_DYNAMODB!, store).send(new ListTablesCommand({})),
      ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
      gate.destroy();
      // The local S3 checks it too.
      const s3 = new S3Client({
        endpoint: url.origin,
        region: LOCAL_REGION,
        forcePathStyle: true,
        credentials: leaked,
        maxAttempts: 1,
      });
      await expect(s3.send(new ListObjectsV2Command({ Bucket: url.pathname.split('/')[1]! }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
      s3.destroy();
    } finally {
      await api.close();
    }
  });
});
