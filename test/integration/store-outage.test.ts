/**
 * DynamoDB stopped in the middle of a run, and started again: a DynamoDB Local of this file's own
 * (on disk, so its data outlives the process), gateways over it, and writers running throughout.
 * While it is down every request that needs the store is 503 ServiceUnavailable with Retry-After,
 * quickly and well-formed: from the gateway when the authorizer cannot look the key up, from the
 * function's error mapping when the key is cached (the authorizer's cache is per key, as API
 * Gateway's is with the Authorization header as its identity source); requests that need no store are answered as
 * usual. Once it is back on the same port the same requests succeed, on the same SDK client (its
 * sockets to the dead process are gone), and every write that got a 2xx is there (except a note
 * the emulator itself acknowledged while it was being stopped: it answers a transaction before
 * committing it, a window real DynamoDB does not have).
 * The restart names its Java through JAVA_HOME, which must not change the port or the data
 * directory (infra/local/emulators/dynamodb-local.ts once lost both that way).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables, type DynamoDbLocal, startDynamoDbLocal } from '#infra/local/emulators/dynamodb-local';
import type { BoundGateway } from '#infra/local/serve-gateway';
import { serviceUnavailable } from '#shared/api/api-error';
import { gatewayResponses } from '#shared/http/gateway-responses';
import type { TableId } from '#shared/store/table-specs';
import { type ApiAnswer, callApi, documentPath, noteId, notePath } from '#test/support/call-api';
import { directStores, serveGatewaysOver } from '#test/support/serve-gateway-over';
import { uniqueTenant } from '#test/support/test-api';

const tenant = uniqueTenant('outage');
const dataDir = mkdtempSync(join(tmpdir(), 'cxm-outage-'));
let port: number;
let dynamo: DynamoDbLocal | undefined;
let tables: Record<TableId, string>;
/** TTL 0: the authorizer looks the key up on every request. */
let coldGateway: BoundGateway;
/** The key cached before the outage: requests reach their function, whose store call fails. */
let warmGateway: BoundGateway;
let direct: ReturnType<typeof directStores>;
let key: string;

const note = (gateway: BoundGateway, conversation: string, body: string) =>
  callApi(gateway.url, 'POST', notePath(tenant, conversation), key, { body });
const readDocument = (gateway: BoundGateway, docId: string) =>
  callApi(gateway.url, 'GET', documentPath(tenant, 'users', docId), key);
const writeDocument = (gateway: BoundGateway, method: 'POST' | 'PUT', docId: string, body: Record<string, unknown>) =>
  callApi(gateway.url, method, documentPath(tenant, 'users', docId), key, body);

function expectUnavailable(answer: ApiAnswer, message: string): void {
  expect(answer.status).toBe(503);
  expect(answer.json).toEqual({ code: 'ServiceUnavailable', message });
}

/**
 * A client writing notes and replacing its own document, one request after another, until told
 * to stop; after a 503 it pauses briefly instead of spinning. It keeps every answer it got.
 */
function startWriter(worker: number) {
  const notes: Array<{ body: string; answer: ApiAnswer }> = [];
  const replaces: Array<{ seq: number; answer: ApiAnswer }> = [];
  let running = true;
  const done = (async () => {
    for (let seq = 0; running; seq++) {
      const body = `writer ${worker} note ${seq}`;
      notes.push({ body, answer: await note(warmGateway, `writer-${worker}`, body) });
      replaces.push({ seq, answer: await writeDocument(warmGateway, 'POST', `writer-${worker}`, { worker, seq }) });
      if (notes.at(-1)!.answer.status === 503 || replaces.at(-1)!.answer.status === 503)
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    notes,
    replaces,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/**
 * Starts DynamoDB Local again on the same port and data directory, this time with JAVA_HOME naming
 * the Java (the README's way to choose one): the port and directory must hold either way.
 */
async function restartThroughJavaHome(): Promise<DynamoDbLocal> {
  const saved = process.env.JAVA_HOME;
  if (saved === undefined) {
    const { stderr } = spawnSync('java', ['-XshowSettings:properties', '-version'], { encoding: 'utf8' });
    process.env.JAVA_HOME = /java\.home = (.+)/.exec(stderr)![1]!.trim();
  }
  try {
    return await startDynamoDbLocal({ dataDir, port });
  } finally {
    if (saved === undefined) delete process.env.JAVA_HOME;
  }
}

beforeAll(async () => {
  // A port of the start's own picking (picked again if another program takes it first); the
  // restart comes back on the same one.
  dynamo = await startDynamoDbLocal({ dataDir });
  port = Number(new URL(dynamo.endpoint).port);
  tables = (await createTables(dynamo, 'outage')) as Record<TableId, string>;
  [coldGateway, warmGateway] = (await serveGatewaysOver(dynamo, tables, [0, 600])) as [BoundGateway, BoundGateway];
  direct = directStores(dynamo, tables);
  ({ key } = await direct.createKey([tenant], ['cxm:conversations.write', 'provisioning:*']));
  for (const id of ['before', 'during', 'writer-0', 'writer-1', 'writer-2']) {
    await direct.addConversation(tenant, id);
  }
});

afterAll(async () => {
  await Promise.all([coldGateway?.close(), warmGateway?.close()]);
  direct?.destroy();
  await dynamo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('DynamoDB stopped and started again', () => {
  it('503 while it is down, on both paths; answers without the store go on; after the restart the same requests succeed and every 2xx write is there', async () => {
    const committed = {
      notes: [] as Array<{ id: string; body: string }>,
      documents: new Map<string, unknown>(),
    };
    // Before: writes through both gateways (this also caches the key in the warm one).
    for (const gateway of [coldGateway, warmGateway]) {
      const answer = await note(gateway, 'before', `before via ${gateway.url}`);
      expect(answer.status).toBe(201);
      committed.notes.push({ id: noteId(answer), body: `before via ${gateway.url}` });
    }
    expect((await writeDocument(warmGateway, 'POST', 'profile', { name: 'Ada', langs: ['en'] })).status).toBe(201);
    expect(await writeDocument(warmGateway, 'PUT', 'profile', { langs: ['en', 'fr'] })).toMatchObject({ status: 200 });
    committed.documents.set('profile', { name: 'Ada', langs: ['en', 'fr'] });
    // The warm gateway caches per key: the writes above cached it for every path.

    const writers = [0, 1, 2].map(startWriter);
    // Let every writer get some writes in before the store goes away.
    while (writers.some((w) => w.notes.filter((n) => n.answer.status === 201).length < 2))
      await new Promise((resolve) => setTimeout(resolve, 20));

    // DynamoDB Local acknowledges a transaction before its COMMIT runs (see drainCommits in
    // infra/local/emulators/dynamodb-local.ts): stop() lets every write acknowledged before it commit, but a
    // note the emulator acknowledges while it is going away can still vanish with it, which
    // DynamoDB itself never does. Such notes are the ones answered while stop() ran.
    const answeredBeforeStop = writers.map((w) => w.notes.length);
    await dynamo!.stop();
    const answeredAtStop = writers.map((w) => w.notes.length);
    dynamo = undefined;

    // The authorizer cannot check the key: the gateway's own 503.
    expectUnavailable(await note(coldGateway, 'during', 'never stored'), gatewayResponses.AUTHORIZER_FAILURE.message);
    // The key is cached (for every path): each function's own store call fails, and the chain maps it to 503.
    const duringOutage = await Promise.all([
      note(warmGateway, 'before', 'never stored'),
      readDocument(warmGateway, 'profile'),
      writeDocument(warmGateway, 'PUT', 'profile', { name: 'Grace' }),
      writeDocument(warmGateway, 'POST', 'other', { name: 'Grace' }),
    ]);
    for (const answer of duringOutage) expectUnavailable(answer, serviceUnavailable(1).message);
    // A burst while down: each one a well-formed 503 (callApi checks the body and Retry-After).
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => note(i % 2 ? warmGateway : coldGateway, 'during', `burst ${i}`)),
    );
    expect(burst.map((a) => a.status)).toEqual(Array(20).fill(503));
    // What the gateway answers without a store is answered as before.
    expect((await callApi(warmGateway.url, 'GET', '/api/v1/no-such-route', key)).status).toBe(404);
    expect((await fetch(`${warmGateway.url}/openapi.json`)).status).toBe(200);
    expect((await callApi(coldGateway.url, 'POST', notePath(tenant, 'during'), undefined, { body: 'x' })).status).toBe(
      401,
    );
    // The writers met the outage too.
    while (writers.some((w) => w.notes.at(-1)!.answer.status !== 503))
      await new Promise((resolve) => setTimeout(resolve, 20));

    dynamo = await restartThroughJavaHome();

    // The very same requests, on the same clients, succeed again.
    const cold = await note(coldGateway, 'during', 'after the restart, cold');
    expect(cold.status).toBe(201);
    committed.notes.push({ id: noteId(cold), body: 'after the restart, cold' });
    expect(await readDocument(warmGateway, 'profile')).toMatchObject({
      status: 200,
      json: committed.documents.get('profile'),
    });
    expect(await writeDocument(warmGateway, 'PUT', 'profile', { name: 'Grace' })).toMatchObject({
      status: 200,
      json: { name: 'Grace', langs: ['en', 'fr'] },
    });
    committed.documents.set('profile', { name: 'Grace', langs: ['en', 'fr'] });
    expect((await writeDocument(warmGateway, 'POST', 'other', { name: 'Grace' })).status).toBe(201);
    committed.documents.set('other', { name: 'Grace' });
    const warm = await note(warmGateway, 'during', 'after the restart, warm');
    expect(warm.status).toBe(201);
    committed.notes.push({ id: noteId(warm), body: 'after the restart, warm' });

    // The writers recover too, then stop.
    while (writers.some((w) => w.notes.at(-1)!.answer.status !== 201))
      await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all(writers.map((w) => w.stop()));

    // Nothing committed is lost: notes and documents of this test...
    const storedNotes = [
      ...(await direct.conversations.listNotes(tenant, 'before')),
      ...(await direct.conversations.listNotes(tenant, 'during')),
    ].map(({ id, body }) => ({ id, body }));
    expect(storedNotes.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      committed.notes.sort((a, b) => a.id.localeCompare(b.id)),
    );
    for (const [docId, document] of committed.documents)
      expect(JSON.parse((await direct.documents.read(tenant, 'users', docId))!.json)).toEqual(document);

    // ...and the writers': only 201s and 503s; every 201 note stored once, nothing never asked for.
    // A 503 write may have completed (the contract says so), so a note that got one may be stored.
    for (const [worker, writer] of writers.entries()) {
      const all = [...writer.notes.map((n) => n.answer), ...writer.replaces.map((r) => r.answer)];
      expect(all.every((a) => [200, 201, 503].includes(a.status))).toBe(true);
      const stored = await direct.conversations.listNotes(tenant, `writer-${worker}`);
      const storedBodies = stored.map((n) => n.body);
      expect(new Set(storedBodies).size).toBe(storedBodies.length);
      for (const [index, { body, answer }] of writer.notes.entries()) {
        if (answer.status !== 201) continue;
        const found = stored.find((n) => n.id === noteId(answer));
        // The note in flight when stop() returned is in that window too: its answer came later.
        const answeredWhileStopping = index >= answeredBeforeStop[worker]! && index <= answeredAtStop[worker]!;
        if (found || !answeredWhileStopping) expect(found?.body).toBe(body);
      }
      const asked = new Set(writer.notes.map((n) => n.body));
      expect(storedBodies.filter((body) => !asked.has(body))).toEqual([]);
      // The document holds the last replace that got a 2xx, or a later one that got a 503.
      const lastOk = writer.replaces.filter((r) => r.answer.status < 300).at(-1)!;
      const final = JSON.parse((await direct.documents.read(tenant, 'users', `writer-${worker}`))!.json) as {
        worker: number;
        seq: number;
      };
      expect(final.worker).toBe(worker);
      expect(final.seq).toBeGreaterThanOrEqual(lastOk.seq);
      expect(writer.replaces.find((r) => r.seq === final.seq)?.answer.status).toBeDefined();
    }
  }, 120_000);
});
