/**
 * DynamoDB faults injected below the SDK (test/support/dynamo-fault-proxy.ts), so the SDK parses
 * real error responses and runs its own retries: a fault shorter than the SDK's attempts is
 * absorbed; a persistent one is 503 ServiceUnavailable with Retry-After after exactly the SDK's
 * attempts, on the authorizer's path and on a function's; a transaction conflict is retried by the
 * note write and is never a 409 or 404; an answer lost after a commit is not a second write. After
 * every fault, every write that got a 2xx is stored. On the same wire: the authorizer's key lookup
 * is a strongly consistent read, so a revocation is seen by the next lookup.
 *
 * @group contended
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoundGateway } from '#infra/local/serve-gateway';
import { serviceUnavailable } from '#shared/api/api-error';
import { gatewayResponses } from '#shared/http/gateway-responses';
import { documentClient } from '#shared/store/dynamo-client';
import { type ApiAnswer, callApi, documentPath, noteId, notePath } from '#test/support/call-api';
import { type DynamoFaultProxy, startDynamoFaultProxy } from '#test/support/dynamo-fault-proxy';
import { directStores, serveGatewaysOver } from '#test/support/serve-gateway-over';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const tenant = uniqueTenant('faults');
const FUNCTION_UNAVAILABLE = serviceUnavailable(1).message;
const AUTHORIZER_UNAVAILABLE = gatewayResponses.AUTHORIZER_FAILURE.message;

let proxy: DynamoFaultProxy;
/** TTL 0: every request runs the authorizer, whose key lookup goes through the proxy. */
let coldGateway: BoundGateway;
/** The key cached: a request reaches its function without a store call of the authorizer. */
let warmGateway: BoundGateway;
let direct: ReturnType<typeof directStores>;
let key: string;
let keyHash: string;
let sdkMaxAttempts: number;

/** Every 2xx write of this file: notes by conversation, the last stored text of each document. */
const committedNotes = new Map<string, Array<{ id: string; body: string }>>();
const committedDocuments = new Map<string, unknown>();

/** The item key as it appears in a request body: exact, so `c-1` never matches `c-10`. */
const pkText = (id: string) => `"${tenant}#${id}"`;
const docKeyText = (docId: string) => `"${docId}"`;

async function postNote(
  conversation: string,
  body: string,
  gateway = warmGateway,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const answer = await callApi(gateway.url, 'POST', notePath(tenant, conversation), key, { body }, headers);
  // A replay is the record of a note already counted, not another one.
  if (answer.status === 201 && !answer.headers.has('idempotent-replayed'))
    committedNotes.set(conversation, [...(committedNotes.get(conversation) ?? []), { id: noteId(answer), body }]);
  return answer;
}

async function writeDocument(
  method: 'POST' | 'PUT',
  docId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const answer = await callApi(warmGateway.url, method, documentPath(tenant, 'users', docId), key, body, headers);
  if (answer.status < 300) committedDocuments.set(docId, answer.json);
  return answer;
}

const getDocument = (docId: string) => callApi(warmGateway.url, 'GET', documentPath(tenant, 'users', docId), key);

async function storedNotes(conversation: string) {
  return (await direct.conversations.listNotes(tenant, conversation))
    .map(({ id, body }) => ({ id, body }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

async function storedDocument(docId: string): Promise<unknown> {
  const text = (await direct.documents.read(tenant, 'users', docId))?.json;
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

function expectUnavailable(answer: ApiAnswer, message: string): void {
  expect(answer.status).toBe(503);
  expect(answer.json).toEqual({ code: 'ServiceUnavailable', message });
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

beforeAll(async () => {
  const { endpoint, credentials, tables } = workerDynamo();
  proxy = await startDynamoFaultProxy(endpoint);
  [coldGateway, warmGateway] = (await serveGatewaysOver({ endpoint: proxy.url, credentials }, tables, [0, 600])) as [
    BoundGateway,
    BoundGateway,
  ];
  // The attempts the functions' client makes (the SDK's default for DynamoDB, or AWS_MAX_ATTEMPTS).
  sdkMaxAttempts = await documentClient().config.maxAttempts();
  direct = directStores({ endpoint, credentials }, tables);
  ({ key, keyHash } = await direct.createKey([tenant], ['cxm:conversations.write', 'provisioning:*']));
  for (const id of [
    'absorbed',
    'persistent',
    'conflict-brief',
    'conflict-persistent',
    'lost-answer',
    'lost-keyed',
    'authorizer',
    'round-trips',
  ]) {
    await direct.addConversation(tenant, id);
  }
  // Warm the cache of the warm gateway: from here its requests reach the functions directly.
  expect((await postNote('absorbed', 'warm-up')).status).toBe(201);
});

afterAll(async () => {
  await Promise.all([coldGateway?.close(), warmGateway?.close()]);
  await proxy?.close();
  direct?.destroy();
});

describe('throttling and server errors below the SDK', () => {
  it('the SDK has retries to run', () => {
    expect(sdkMaxAttempts).toBeGreaterThan(1);
  });

  it('a fault on fewer attempts than the SDK makes is absorbed: 2xx, every retry seen, the write stored once', async () => {
    const times = sdkMaxAttempts - 1;
    await direct.documents.replace(tenant, 'users', 'read-absorbed', JSON.stringify({ seeded: true }));
    const {
      result: [note, replaced, read],
      faults,
    } = await proxy.during(
      [
        { operation: 'TransactWriteItems', bodyContains: pkText('absorbed'), fault: 'ThrottlingException', times },
        {
          operation: 'TransactWriteItems',
          bodyContains: docKeyText('replace-absorbed'),
          fault: 'ProvisionedThroughputExceededException',
          times,
        },
        { operation: 'GetItem', bodyContains: docKeyText('read-absorbed'), fault: 'InternalServerError', times },
      ],
      () =>
        Promise.all([
          postNote('absorbed', 'throttled then stored'),
          writeDocument('POST', 'replace-absorbed', { name: 'Ada' }),
          getDocument('read-absorbed'),
        ]),
    );
    expect(note.status).toBe(201);
    expect(replaced.status).toBe(201);
    expect(read).toMatchObject({ status: 200, json: { seeded: true } });
    for (const fault of faults)
      expect({ faulted: fault.faulted, matched: fault.matched }).toEqual({ faulted: times, matched: sdkMaxAttempts });
    expect(await storedNotes('absorbed')).toEqual(
      committedNotes.get('absorbed')!.sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(await storedDocument('replace-absorbed')).toEqual({ name: 'Ada' });
  });

  it("a persistent fault is 503 ServiceUnavailable with Retry-After after exactly the SDK's attempts; nothing is written; the next request succeeds", async () => {
    expect((await writeDocument('POST', 'persistent-doc', { version: 'first' })).status).toBe(201);
    const { result: answers, faults } = await proxy.during(
      [
        { operation: 'TransactWriteItems', bodyContains: pkText('persistent'), fault: 'ThrottlingException' },
        {
          operation: 'GetItem',
          bodyContains: docKeyText('persistent-read'),
          fault: 'ProvisionedThroughputExceededException',
        },
        { operation: 'TransactWriteItems', bodyContains: docKeyText('persistent-doc'), fault: 'InternalServerError' },
      ],
      () =>
        Promise.all([
          postNote('persistent', 'never stored'),
          getDocument('persistent-read'),
          writeDocument('POST', 'persistent-doc', { version: 'second' }),
        ]),
    );
    for (const answer of answers) expectUnavailable(answer, FUNCTION_UNAVAILABLE);
    for (const fault of faults) expect(fault.matched).toBe(sdkMaxAttempts);
    expect(await storedNotes('persistent')).toEqual([]);
    expect(await storedDocument('persistent-doc')).toEqual({ version: 'first' });

    expect((await postNote('persistent', 'after the fault')).status).toBe(201);
    expect(await getDocument('persistent-doc')).toMatchObject({ status: 200, json: { version: 'first' } });
    expect(await storedNotes('persistent')).toEqual(committedNotes.get('persistent'));
  });

  it("a persistent fault on the authorizer's key lookup is the gateway's 503 ServiceUnavailable after the SDK's attempts", async () => {
    const {
      result: answer,
      faults: [fault],
    } = await proxy.during([{ operation: 'GetItem', bodyContains: keyHash, fault: 'ThrottlingException' }], () =>
      postNote('authorizer', 'never stored', coldGateway),
    );
    expectUnavailable(answer, AUTHORIZER_UNAVAILABLE);
    expect(fault.matched).toBe(sdkMaxAttempts);
    expect(await storedNotes('authorizer')).toEqual([]);
    expect((await postNote('authorizer', 'after the fault', coldGateway)).status).toBe(201);
    expect(await storedNotes('authorizer')).toEqual(committedNotes.get('authorizer'));
  });
});

describe('transaction conflicts on the note write', () => {
  // The SDK does not retry a cancelled transaction; the note write does (conversations-store.ts),
  // so each of its attempts is one request the proxy sees.
  it('a conflict the note write outlasts is retried by it: 201 and exactly one note', async () => {
    const {
      result: answer,
      faults: [fault],
    } = await proxy.during(
      [
        {
          operation: 'TransactWriteItems',
          bodyContains: pkText('conflict-brief'),
          fault: 'TransactionConflict',
          times: 2,
        },
      ],
      () => postNote('conflict-brief', 'conflicted then stored'),
    );
    expect(answer.status).toBe(201);
    expect(fault.matched).toBe(3);
    expect(await storedNotes('conflict-brief')).toEqual(committedNotes.get('conflict-brief'));
  });

  it('a conflict that outlasts its retries is 503 ServiceUnavailable (the conversation was never refused), and writes nothing', async () => {
    const {
      result: answer,
      faults: [fault],
    } = await proxy.during(
      [{ operation: 'TransactWriteItems', bodyContains: pkText('conflict-persistent'), fault: 'TransactionConflict' }],
      () => postNote('conflict-persistent', 'never stored'),
    );
    // Not 409 (nothing refused the note) and not 404 (the conversation exists): busy, retry later.
    expectUnavailable(answer, FUNCTION_UNAVAILABLE);
    expect(fault.matched).toBeGreaterThan(1);
    expect(await storedNotes('conflict-persistent')).toEqual([]);
    expect((await postNote('conflict-persistent', 'after the conflicts')).status).toBe(201);
  });
});

describe('answers lost after a commit', () => {
  it('a note whose answer was lost is retried with the same token: 201 and exactly one note', async () => {
    const {
      result: answer,
      faults: [fault],
    } = await proxy.during(
      [
        {
          operation: 'TransactWriteItems',
          bodyContains: pkText('lost-answer'),
          fault: 'InternalServerErrorAfterCommit',
          times: 1,
        },
      ],
      () => postNote('lost-answer', 'committed once'),
    );
    expect(answer.status).toBe(201);
    expect(fault.matched).toBe(2);
    expect(await storedNotes('lost-answer')).toEqual(committedNotes.get('lost-answer'));
  });

  it('a replace and a merge whose answers were lost leave the document as one application of each', async () => {
    expect((await writeDocument('POST', 'lost-merge', { list: [1], keep: 'yes', drop: 'me' })).status).toBe(201);
    const { result: merged } = await proxy.during(
      [
        {
          operation: 'UpdateItem',
          bodyContains: docKeyText('lost-merge'),
          fault: 'InternalServerErrorAfterCommit',
          times: 1,
        },
      ],
      () => writeDocument('PUT', 'lost-merge', { list: [2], drop: null, nested: { a: 1 } }),
    );
    expect(merged).toMatchObject({ status: 200, json: { list: [2], keep: 'yes', nested: { a: 1 } } });
    expect(await storedDocument('lost-merge')).toEqual({ list: [2], keep: 'yes', nested: { a: 1 } });

    const { result: replaced } = await proxy.during(
      [
        {
          operation: 'UpdateItem',
          bodyContains: docKeyText('lost-replace'),
          fault: 'InternalServerErrorAfterCommit',
          times: 1,
        },
      ],
      () => writeDocument('POST', 'lost-replace', { only: 'this' }),
    );
    // The retry finds the document its own first attempt created, and knows it by its ETag.
    expect(replaced.status).toBe(201);
    expect(await storedDocument('lost-replace')).toEqual({ only: 'this' });
  });

  it('a keyed note, replace and merge whose answers were lost commit once and answer as first executions, not replays', async () => {
    const lost = (operation: string, bodyContains: string) =>
      [{ operation, bodyContains, fault: 'InternalServerErrorAfterCommit', times: 1 }] as const;
    const {
      result: note,
      faults: [noteFault],
    } = await proxy.during(lost('TransactWriteItems', pkText('lost-keyed')), () =>
      postNote('lost-keyed', 'keyed, committed once', warmGateway, { 'Idempotency-Key': `${tenant}-note` }),
    );
    expect(note.status).toBe(201);
    expect(noteFault.matched).toBe(2);
    expect(note.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedNotes('lost-keyed')).toEqual(committedNotes.get('lost-keyed'));

    expect((await writeDocument('POST', 'lost-keyed', { v: 0, keep: 'yes' })).status).toBe(201);
    const {
      result: replaced,
      faults: [replaceFault],
    } = await proxy.during(lost('TransactWriteItems', docKeyText('lost-keyed')), () =>
      writeDocument('POST', 'lost-keyed', { v: 1 }, { 'Idempotency-Key': `${tenant}-replace` }),
    );
    expect(replaceFault.matched).toBe(2);
    expect(replaced).toMatchObject({ status: 200, json: { v: 1 } });
    expect(replaced.headers.get('idempotent-replayed')).toBeNull();
    const { result: merged } = await proxy.during(lost('TransactWriteItems', docKeyText('lost-keyed')), () =>
      writeDocument('PUT', 'lost-keyed', { n: 1 }, { 'Idempotency-Key': `${tenant}-merge` }),
    );
    expect(merged).toMatchObject({ status: 200, json: { v: 1, n: 1 } });
    expect(merged.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedDocument('lost-keyed')).toEqual({ v: 1, n: 1 });
  });
});

/**
 * The cost of safe retries, counted on the wire: the DynamoDB requests that carry this tenant's
 * data (the authorizer's key lookup is cached here), per request. Without a key nothing is added;
 * with one, the record rides in the write's own transaction, and a replay reads nothing beyond it.
 */
describe('DynamoDB round trips of the idempotency path', () => {
  const OPERATIONS = ['GetItem', 'PutItem', 'UpdateItem', 'TransactWriteItems', 'Query'] as const;

  /** The operations `request` sent for this tenant, by name (rules that fault nothing only count). */
  async function roundTrips(
    request: () => Promise<ApiAnswer>,
  ): Promise<{ answer: ApiAnswer; calls: Record<string, number> }> {
    const rules = OPERATIONS.map((operation) => ({
      operation,
      bodyContains: tenant,
      fault: 'InternalServerError' as const,
      times: 0,
    }));
    const { result: answer, faults } = await proxy.during(rules, request);
    const calls = Object.fromEntries(
      OPERATIONS.map((operation, i) => [operation, faults[i]!.matched]).filter(([, count]) => count !== 0),
    );
    return { answer, calls };
  }

  it('a note: one transaction, keyed or not, and a replay is that one transaction too', async () => {
    const keyed = { 'Idempotency-Key': `${tenant}-trips-note` };
    expect((await roundTrips(() => postNote('round-trips', 'plain'))).calls).toEqual({ TransactWriteItems: 1 });
    const first = await roundTrips(() => postNote('round-trips', 'keyed', warmGateway, keyed));
    expect([first.answer.status, first.calls]).toEqual([201, { TransactWriteItems: 1 }]);
    const replay = await roundTrips(() => postNote('round-trips', 'keyed', warmGateway, keyed));
    expect([replay.answer.status, replay.answer.headers.get('idempotent-replayed'), replay.calls]).toEqual([
      201,
      'true',
      { TransactWriteItems: 1 },
    ]);
    const other = await roundTrips(() => postNote('round-trips', 'another body', warmGateway, keyed));
    expect([other.answer.status, other.calls]).toEqual([422, { TransactWriteItems: 1 }]);
  });

  it('a replace or a merge: its read plus one transaction (the document and its version), keyed or not, a replay too', async () => {
    const readAndWrite = { GetItem: 1, TransactWriteItems: 1 };
    expect((await writeDocument('POST', 'trips', { v: 0 })).status).toBe(201);
    expect((await roundTrips(() => writeDocument('POST', 'trips', { v: 1 }))).calls).toEqual(readAndWrite);
    const keyed = { 'Idempotency-Key': `${tenant}-trips-replace` };
    expect((await roundTrips(() => writeDocument('POST', 'trips', { v: 2 }, keyed))).calls).toEqual(readAndWrite);
    expect((await roundTrips(() => writeDocument('POST', 'trips', { v: 2 }, keyed))).calls).toEqual(readAndWrite);
    expect((await roundTrips(() => writeDocument('PUT', 'trips', { m: 1 }))).calls).toEqual(readAndWrite);
    const mergeKey = { 'Idempotency-Key': `${tenant}-trips-merge` };
    expect((await roundTrips(() => writeDocument('PUT', 'trips', { m: 2 }, mergeKey))).calls).toEqual({
      GetItem: 1,
      TransactWriteItems: 1,
    });
    expect((await roundTrips(() => writeDocument('PUT', 'trips', { m: 2 }, mergeKey))).calls).toEqual({
      GetItem: 1,
      TransactWriteItems: 1,
    });
  });
});

/**
 * Revocation within one TTL: an eventually consistent GetItem may return a key record from before
 * its revocation, and a cache would keep that answer a whole TTL more. DynamoDB Local is always
 * consistent, so the revocation test alone would pass without the flag: the request body on the
 * wire is what proves it.
 */
describe("the authorizer's key lookup", () => {
  const consistentReads = (bodies: readonly string[]) =>
    bodies.map((body) => (JSON.parse(body) as { ConsistentRead?: unknown }).ConsistentRead);

  it('is a strongly consistent GetItem, with the cache off and on the first lookup with it on', async () => {
    const fresh = await direct.createKey([tenant], ['provisioning:*']);
    const recording = proxy.record({ operation: 'GetItem', bodyContains: fresh.keyHash });
    try {
      for (const gateway of [coldGateway, warmGateway]) {
        expect((await callApi(gateway.url, 'GET', documentPath(tenant, 'users', 'key-lookup'), fresh.key)).status).toBe(
          404,
        );
      }
    } finally {
      recording.remove();
    }
    expect(consistentReads(recording.bodies)).toEqual([true, true]);
  });

  it('sees a revocation on the next lookup', async () => {
    const fresh = await direct.createKey([tenant], ['provisioning:*']);
    const path = documentPath(tenant, 'users', 'revoked-lookup');
    expect((await callApi(coldGateway.url, 'GET', path, fresh.key)).status).toBe(404);
    await direct.keys.revoke(fresh.keyId, new Date());
    expect(await callApi(coldGateway.url, 'GET', path, fresh.key)).toMatchObject({
      status: 401,
      json: { code: gatewayResponses.UNAUTHORIZED.code },
    });
  });
});

describe('after all the faults', () => {
  it('every write that got a 2xx is stored, and no note that did not', async () => {
    expect(committedNotes.size).toBeGreaterThan(0);
    for (const [conversation, notes] of committedNotes) {
      expect(await storedNotes(conversation), conversation).toEqual(
        [...notes].sort((a, b) => a.id.localeCompare(b.id)),
      );
    }
    for (const [docId, document] of committedDocuments) expect(await storedDocument(docId), docId).toEqual(document);
  });
});
