/**
 * Idempotency-Key on the three writes a client may need to retry (note POST, document replace POST,
 * document merge PUT), through the local gateway and DynamoDB Local. A client that sends the key
 * may repeat the request any number of times, concurrently or after losing the response, and the
 * write happens once: repeats get the first answer again, marked `Idempotent-Replayed: true`. A key
 * belongs to the tenant of the path, a different request under a used key is refused (422), and a
 * request that failed left no trace, so it can be retried. Expiry of a key has a file of its own
 * (idempotency-expiry.test.ts): it needs a short TTL at cold start.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTE_INSERT_PATTERN } from '#infra/cdk/constructs/note-events';
import { matchesEventPattern } from '#infra/local/emulators/match-event-pattern';
import { REPLAYED_HEADER } from '#shared/http/idempotent-answer';
import { type ApiFaultProxy, startApiFaultProxy } from '#test/support/api-fault-proxy';
import { documentPath, notePath } from '#test/support/call-api';
import { type Answer, expectExecuted, expectReplayOf } from '#test/support/idempotent-answers';
import { createRawClient } from '#test/support/raw-client';
import { readTableStream } from '#test/support/read-table-stream';
import { documentedFetch, startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

const IDEMPOTENCY_KEY = 'Idempotency-Key';
const REPLAYED = REPLAYED_HEADER;
const COLLECTION = 'users';
const SCOPES = ['cxm:conversations.write', 'provisioning:*'];

let api: TestApi;
let proxy: ApiFaultProxy;

beforeAll(async () => {
  api = await startTestApi();
  proxy = await startApiFaultProxy(api.url);
});
afterAll(async () => {
  await proxy?.close();
  await api?.close();
});

/** A tenant of the test's own with an API key for it and open conversations to write notes on. */
async function freshTenant(conversations: string[] = ['c-1']): Promise<{ tenant: string; key: string }> {
  const tenant = uniqueTenant('idem');
  const { key } = await api.createKey([tenant], SCOPES);
  for (const id of conversations) await api.addConversation(tenant, { id });
  return { tenant, key };
}

const newIdempotencyKey = () => `idem-${randomUUID()}`;
const keyed = (idempotencyKey: string | undefined): Record<string, string> =>
  idempotencyKey === undefined ? {} : { [IDEMPOTENCY_KEY]: idempotencyKey };

const postNote = (tenant: string, conversation: string, key: string, body: unknown, idempotencyKey?: string) =>
  api.call('POST', notePath(tenant, conversation), key, { body, headers: keyed(idempotencyKey) });
const replaceDocument = (tenant: string, docId: string, key: string, body: unknown, idempotencyKey?: string) =>
  api.call('POST', documentPath(tenant, COLLECTION, docId), key, { body, headers: keyed(idempotencyKey) });
const mergeDocument = (tenant: string, docId: string, key: string, body: unknown, idempotencyKey?: string) =>
  api.call('PUT', documentPath(tenant, COLLECTION, docId), key, { body, headers: keyed(idempotencyKey) });
const readDocument = (tenant: string, docId: string, key: string) =>
  api.call('GET', documentPath(tenant, COLLECTION, docId), key);

const noteIdOf = (answer: { json: unknown }) => (answer.json as { note: { id: string } }).note.id;
const storedNoteIds = async (tenant: string, conversation: string) =>
  (await api.conversations.listNotes(tenant, conversation)).map((note) => note.id);

/** The answer to a key used before for another request. */
function expectKeyReused(answer: Answer): void {
  expect(answer.status, answer.text).toBe(422);
  expect(answer.json).toEqual({ code: 'BadRequest', message: expect.stringContaining(IDEMPOTENCY_KEY) });
  expect(answer.headers.get(REPLAYED)).toBeNull();
}

/**
 * The NoteCreated events a conversation's notes produce: the conversations stream's records that
 * the pipe's own filter lets through, for this conversation. One per committed note; an insert
 * rolled back later would still have announced a note that does not exist.
 */
async function noteCreatedEvents(tenant: string, conversation: string): Promise<string[]> {
  const records = await readTableStream(api.dynamo, api.tables.conversations);
  return records
    .filter((record) => matchesEventPattern(NOTE_INSERT_PATTERN, record))
    .map((record) => record.dynamodb?.NewImage)
    .filter((image) => image?.tenantId?.S === tenant && image.conversationId?.S === conversation)
    .map((image) => image?.id?.S ?? '');
}

describe('the Idempotency-Key header', () => {
  // Through the raw client, so each value reaches the gateway byte for byte as written here.
  it.each<[string, string]>([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['holding a space', 'two words'],
    ['holding a tab', 'tab\there'],
    ['holding a non-ASCII byte (é in Latin-1)', 'caf\u00e9'],
    // Node writes header strings as Latin-1: these two characters are the UTF-8 bytes of é.
    ['holding non-ASCII UTF-8 bytes (é)', Buffer.from('café', 'utf8').toString('latin1')],
  ])('%s is 400 BadRequest naming the header, and nothing is written', async (_name, value) => {
    const { tenant, key } = await freshTenant();
    const client = createRawClient(api.url);
    try {
      const answer = await client.send({
        method: 'POST',
        target: notePath(tenant, 'c-1'),
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', [IDEMPOTENCY_KEY]: value },
        body: JSON.stringify({ body: 'A note' }),
      });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.json).toEqual({ code: 'BadRequest', message: expect.stringContaining(IDEMPOTENCY_KEY) });
    } finally {
      client.close();
    }
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([]);
  });

  it('given on two header lines is 400 naming the header, whichever the lines hold, and nothing is written', async () => {
    const { tenant, key } = await freshTenant();
    const client = createRawClient(api.url);
    try {
      const answer = await client.send({
        method: 'POST',
        target: notePath(tenant, 'c-1'),
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          [IDEMPOTENCY_KEY]: ['first-key', 'second-key'],
        },
        body: JSON.stringify({ body: 'A note' }),
      });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.json).toEqual({ code: 'BadRequest', message: expect.stringContaining('more than once') });
    } finally {
      client.close();
    }
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([]);
  });

  it('is checked on the document writes too: a bad key changes no document', async () => {
    const { tenant, key } = await freshTenant();
    const replace = await replaceDocument(tenant, 'absent', key, { v: 1 }, 'two words');
    expect(replace.status).toBe(400);
    expect(replace.json).toEqual({ code: 'BadRequest', message: expect.stringContaining(IDEMPOTENCY_KEY) });
    expect((await readDocument(tenant, 'absent', key)).status).toBe(404);

    await replaceDocument(tenant, 'kept', key, { v: 'before' });
    const merge = await mergeDocument(tenant, 'kept', key, { v: 'after' }, 'k'.repeat(256));
    expect(merge.status).toBe(400);
    expect(merge.json).toEqual({ code: 'BadRequest', message: expect.stringContaining(IDEMPOTENCY_KEY) });
    expect((await readDocument(tenant, 'kept', key)).json).toEqual({ v: 'before' });
  });

  it('accepts 1 character and 255, every visible ASCII character, and uses all 255 of them', async () => {
    const { tenant, key } = await freshTenant();
    // All 94 visible characters, cycled to the maximum length.
    const longest = Array.from({ length: 255 }, (_, i) => String.fromCharCode(0x21 + (i % 94))).join('');
    const neighbour = `${longest.slice(0, 254)}!`;
    expect(neighbour).not.toBe(longest);

    for (const idempotencyKey of ['!', longest]) {
      const first = await postNote(tenant, 'c-1', key, { body: 'keyed' }, idempotencyKey);
      expectExecuted(first, 201);
      expectReplayOf(await postNote(tenant, 'c-1', key, { body: 'keyed' }, idempotencyKey), first);
    }
    // Differing only in the last character: a key cut short anywhere would make this a replay.
    expectExecuted(await postNote(tenant, 'c-1', key, { body: 'keyed' }, neighbour), 201);
    expect(await storedNoteIds(tenant, 'c-1')).toHaveLength(3);
  });

  it('absent, nothing changes: two identical notes are two notes, neither marked as a replay', async () => {
    const { tenant, key } = await freshTenant();
    const first = await postNote(tenant, 'c-1', key, { body: 'same' });
    const second = await postNote(tenant, 'c-1', key, { body: 'same' });
    expectExecuted(first, 201);
    expectExecuted(second, 201);
    expect(noteIdOf(second)).not.toBe(noteIdOf(first));
    expect((await storedNoteIds(tenant, 'c-1')).sort()).toEqual([noteIdOf(first), noteIdOf(second)].sort());
  });
});

describe('a repeated request is answered from the first, and writes nothing', () => {
  it('a note: 201 with the same bytes, and one note', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const first = await postNote(tenant, 'c-1', key, { body: 'Refund approved' }, idempotencyKey);
    expectExecuted(first, 201);
    expectReplayOf(await postNote(tenant, 'c-1', key, { body: 'Refund approved' }, idempotencyKey), first);
    // The same JSON written differently is the same request.
    expectReplayOf(await postNote(tenant, 'c-1', key, ' {\n  "body" :  "Refund approved"\n}\t', idempotencyKey), first);
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([noteIdOf(first)]);
  });

  it('a replace that created the document: 201 again, although the document now exists', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const document = { name: 'Ada', roles: ['agent'] };
    const first = await replaceDocument(tenant, 'u-1', key, document, idempotencyKey);
    expectExecuted(first, 201);
    expect(first.json).toEqual(document);
    expect(first.headers.get('etag')).toBeTruthy();
    expectReplayOf(await replaceDocument(tenant, 'u-1', key, document, idempotencyKey), first);
    expect((await readDocument(tenant, 'u-1', key)).json).toEqual(document);
  });

  it('a replace of an existing document: 200 again', async () => {
    const { tenant, key } = await freshTenant();
    await replaceDocument(tenant, 'u-1', key, { name: 'Old' });
    const idempotencyKey = newIdempotencyKey();
    const first = await replaceDocument(tenant, 'u-1', key, { name: 'New' }, idempotencyKey);
    expectExecuted(first, 200);
    expect(first.headers.get('etag')).toBeTruthy();
    expectReplayOf(await replaceDocument(tenant, 'u-1', key, { name: 'New' }, idempotencyKey), first);
    expect((await readDocument(tenant, 'u-1', key)).json).toEqual({ name: 'New' });
  });

  it('a merge: 200 with the merged document of the first call, applied once', async () => {
    const { tenant, key } = await freshTenant();
    await replaceDocument(tenant, 'u-1', key, { name: 'Ada', visits: ['mon'] });
    const idempotencyKey = newIdempotencyKey();
    const patch = { visits: ['mon', 'tue'], profile: { tz: 'UTC' } };
    const first = await mergeDocument(tenant, 'u-1', key, patch, idempotencyKey);
    expectExecuted(first, 200);
    expect(first.json).toEqual({ name: 'Ada', visits: ['mon', 'tue'], profile: { tz: 'UTC' } });
    expect(first.headers.get('etag')).toBeTruthy();
    expectReplayOf(await mergeDocument(tenant, 'u-1', key, patch, idempotencyKey), first);
    expect((await readDocument(tenant, 'u-1', key)).json).toEqual(first.json);
  });

  it('compares bodies as JSON: member order and white space at any depth do not matter', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const first = await replaceDocument(
      tenant,
      'u-1',
      key,
      '{"a":1,"b":{"c":"x","d":[1,{"e":true,"f":null}]}}',
      idempotencyKey,
    );
    expectExecuted(first, 201);
    const reordered = '{ "b" : {\n "d" : [ 1 , { "f":null, "e":true } ],\t"c":"x" },\r\n "a":1 }';
    expectReplayOf(await replaceDocument(tenant, 'u-1', key, reordered, idempotencyKey), first);
    // Another spelling of the same string: an escape for a plain character.
    const escaped = '{"a":1,"b":{"c":"\\u0078","d":[1,{"e":true,"f":null}]}}';
    expectReplayOf(await replaceDocument(tenant, 'u-1', key, escaped, idempotencyKey), first);
  });

  it('a note on a conversation closed since: the recorded 201, not a 409', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const first = await postNote(tenant, 'c-1', key, { body: 'before closing' }, idempotencyKey);
    expectExecuted(first, 201);
    await api.addConversation(tenant, { id: 'c-1', status: 'closed' });
    expectReplayOf(await postNote(tenant, 'c-1', key, { body: 'before closing' }, idempotencyKey), first);
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([noteIdOf(first)]);
  });

  it('with a different API key of the same tenant: the key belongs to the tenant, not to the caller', async () => {
    const { tenant, key } = await freshTenant();
    const { key: colleague } = await api.createKey([tenant], SCOPES);
    const idempotencyKey = newIdempotencyKey();
    const first = await postNote(tenant, 'c-1', key, { body: 'once' }, idempotencyKey);
    expectExecuted(first, 201);
    expectReplayOf(await postNote(tenant, 'c-1', colleague, { body: 'once' }, idempotencyKey), first);
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([noteIdOf(first)]);
  });
});

describe('the same key in another tenant', () => {
  it('is another key: the request runs afresh there', async () => {
    const tenant = uniqueTenant('idem');
    const other = uniqueTenant('idem');
    // One API key for both: only the tenant of the path tells the two apart.
    const { key } = await api.createKey([tenant, other], SCOPES);
    for (const t of [tenant, other]) await api.addConversation(t, { id: 'c-1' });
    const idempotencyKey = newIdempotencyKey();

    const here = await postNote(tenant, 'c-1', key, { body: 'same' }, idempotencyKey);
    const there = await postNote(other, 'c-1', key, { body: 'same' }, idempotencyKey);
    expectExecuted(here, 201);
    expectExecuted(there, 201);
    expect(noteIdOf(there)).not.toBe(noteIdOf(here));
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([noteIdOf(here)]);
    expect(await storedNoteIds(other, 'c-1')).toEqual([noteIdOf(there)]);

    const documentKey = newIdempotencyKey();
    expectExecuted(await replaceDocument(tenant, 'u-1', key, { v: 1 }, documentKey), 201);
    expectExecuted(await replaceDocument(other, 'u-1', key, { v: 1 }, documentKey), 201);
  });
});

describe('a used key with a different request is 422, and changes nothing', () => {
  /**
   * Each case runs `first` with a fresh key, then `second` with the same key, which must be refused
   * and leave the tenant as `first` left it; `first` repeated is still a replay afterwards.
   */
  interface Case {
    first: (tenant: string, key: string, idempotencyKey: string) => Promise<Answer>;
    second: (tenant: string, key: string, idempotencyKey: string) => Promise<Answer>;
    unchanged: (tenant: string, key: string) => Promise<void>;
  }

  const cases: Record<string, Case> = {
    'a note with another body': {
      first: (t, k, i) => postNote(t, 'c-1', k, { body: 'first' }, i),
      second: (t, k, i) => postNote(t, 'c-1', k, { body: 'second' }, i),
      unchanged: async (t) => expect(await storedNoteIds(t, 'c-1')).toHaveLength(1),
    },
    'a note on another conversation': {
      first: (t, k, i) => postNote(t, 'c-1', k, { body: 'same' }, i),
      second: (t, k, i) => postNote(t, 'c-2', k, { body: 'same' }, i),
      unchanged: async (t) => expect(await storedNoteIds(t, 'c-2')).toEqual([]),
    },
    'a replace of another document': {
      first: (t, k, i) => replaceDocument(t, 'u-1', k, { v: 1 }, i),
      second: (t, k, i) => replaceDocument(t, 'u-2', k, { v: 1 }, i),
      unchanged: async (t, k) => expect((await readDocument(t, 'u-2', k)).status).toBe(404),
    },
    'a replace with another body': {
      first: (t, k, i) => replaceDocument(t, 'u-1', k, { v: 1 }, i),
      second: (t, k, i) => replaceDocument(t, 'u-1', k, { v: 2 }, i),
      unchanged: async (t, k) => expect((await readDocument(t, 'u-1', k)).json).toEqual({ v: 1 }),
    },
    'a replace with the same members in another array order': {
      first: (t, k, i) => replaceDocument(t, 'u-1', k, { list: [1, 2] }, i),
      second: (t, k, i) => replaceDocument(t, 'u-1', k, { list: [2, 1] }, i),
      unchanged: async (t, k) => expect((await readDocument(t, 'u-1', k)).json).toEqual({ list: [1, 2] }),
    },
    'a merge (PUT) after a replace (POST) of the same document with the same body': {
      first: (t, k, i) => replaceDocument(t, 'u-1', k, { v: 1 }, i),
      second: (t, k, i) => mergeDocument(t, 'u-1', k, { v: 1 }, i),
      unchanged: async (t, k) => expect((await readDocument(t, 'u-1', k)).json).toEqual({ v: 1 }),
    },
    'a replace (POST) after a merge (PUT) of the same document with the same body': {
      first: async (t, k, i) => {
        await replaceDocument(t, 'u-1', k, { v: 0, kept: true });
        return mergeDocument(t, 'u-1', k, { v: 1 }, i);
      },
      second: (t, k, i) => replaceDocument(t, 'u-1', k, { v: 1 }, i),
      unchanged: async (t, k) => expect((await readDocument(t, 'u-1', k)).json).toEqual({ v: 1, kept: true }),
    },
    'a document write after a note': {
      first: (t, k, i) => postNote(t, 'c-1', k, { body: 'note' }, i),
      second: (t, k, i) => replaceDocument(t, 'u-1', k, { body: 'note' }, i),
      unchanged: async (t, k) => expect((await readDocument(t, 'u-1', k)).status).toBe(404),
    },
  };

  it.each(Object.entries(cases))('%s', async (_name, { first, second, unchanged }) => {
    const { tenant, key } = await freshTenant(['c-1', 'c-2']);
    const idempotencyKey = newIdempotencyKey();
    const original = await first(tenant, key, idempotencyKey);
    expect(original.status, original.text).toBeLessThan(300);
    expect(original.headers.get(REPLAYED)).toBeNull();

    expectKeyReused(await second(tenant, key, idempotencyKey));
    await unchanged(tenant, key);
    // The refusal did not disturb the record: the first request still replays.
    expectReplayOf(await first(tenant, key, idempotencyKey), original);
  });
});

describe('a request that fails records nothing: the same key runs again', () => {
  it('a note refused on a closed conversation (409) commits once the conversation reopens', async () => {
    const { tenant, key } = await freshTenant([]);
    await api.addConversation(tenant, { id: 'c-1', status: 'closed' });
    const idempotencyKey = newIdempotencyKey();
    const refused = await postNote(tenant, 'c-1', key, { body: 'after reopening' }, idempotencyKey);
    expect(refused.status).toBe(409);
    expect(refused.headers.get(REPLAYED)).toBeNull();

    await api.addConversation(tenant, { id: 'c-1', status: 'open' });
    const retried = await postNote(tenant, 'c-1', key, { body: 'after reopening' }, idempotencyKey);
    expectExecuted(retried, 201);
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([noteIdOf(retried)]);
  });

  it('a note with an invalid body (400) leaves the key free for a corrected one', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    expect((await postNote(tenant, 'c-1', key, { body: '' }, idempotencyKey)).status).toBe(400);
    const corrected = await postNote(tenant, 'c-1', key, { body: 'now with text' }, idempotencyKey);
    expectExecuted(corrected, 201);
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([noteIdOf(corrected)]);
  });

  it('a merge of an absent document (404) applies once the document exists', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const missing = await mergeDocument(tenant, 'u-1', key, { b: 2 }, idempotencyKey);
    expect(missing.status).toBe(404);
    expect(missing.headers.get(REPLAYED)).toBeNull();

    await replaceDocument(tenant, 'u-1', key, { a: 1 });
    const merged = await mergeDocument(tenant, 'u-1', key, { b: 2 }, idempotencyKey);
    expectExecuted(merged, 200);
    expect(merged.json).toEqual({ a: 1, b: 2 });
  });
});

describe('concurrent repeats', () => {
  it('20 identical keyed notes at once: one note, one NoteCreated, 20 identical 201s, one of them not a replay', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => postNote(tenant, 'c-1', key, { body: 'once only' }, idempotencyKey)),
    );

    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get(REPLAYED) === null)).toHaveLength(1);
    expect(answers.filter((answer) => answer.headers.get(REPLAYED) === 'true')).toHaveLength(19);
    const id = noteIdOf(answers[0]!);
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([id]);
    expect(await noteCreatedEvents(tenant, 'c-1')).toEqual([id]);
  });

  it('10 identical keyed replaces at once: one write, 10 identical 201s, one of them not a replay', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => replaceDocument(tenant, 'u-1', key, { v: 'once' }, idempotencyKey)),
    );

    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.headers.get('etag'))).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get(REPLAYED) === null)).toHaveLength(1);
    expect((await readDocument(tenant, 'u-1', key)).json).toEqual({ v: 'once' });
  });

  it('one key on 10 different notes at once: one commits, the other nine are 422', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postNote(tenant, 'c-1', key, { body: `note ${i}` }, idempotencyKey)),
    );

    const committed = answers.filter((answer) => answer.status === 201);
    expect(committed).toHaveLength(1);
    expect(committed[0]!.headers.get(REPLAYED)).toBeNull();
    for (const refused of answers.filter((answer) => answer.status !== 201)) expectKeyReused(refused);
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([noteIdOf(committed[0]!)]);
  });
});

describe('a retry after a lost response', () => {
  it('gets the committed note, byte for byte; one note exists and one NoteCreated is announced', async () => {
    const { tenant, key } = await freshTenant();
    const idempotencyKey = newIdempotencyKey();
    const url = `${proxy.url}${notePath(tenant, 'c-1')}`;
    const init: RequestInit = {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        [IDEMPOTENCY_KEY]: idempotencyKey,
      },
      body: JSON.stringify({ body: 'Lost in transit' }),
    };

    const lost = proxy.dropResponse(tenant);
    await expect(fetch(url, init)).rejects.toThrow();
    const committed = await lost;
    expect(committed.status, committed.text).toBe(201);

    const retry = await documentedFetch(url, init);
    const text = await retry.text();
    expect(retry.status).toBe(201);
    expect(retry.headers.get(REPLAYED)).toBe('true');
    expect(text).toBe(committed.text);

    const id = noteIdOf({ json: JSON.parse(text) as unknown });
    expect(await storedNoteIds(tenant, 'c-1')).toEqual([id]);
    expect(await noteCreatedEvents(tenant, 'c-1')).toEqual([id]);
  });
});

describe('writes by others between a keyed write and its repeat', () => {
  it('a replace: the repeat replays the first answer and the other client keeps its content', async () => {
    const { tenant, key } = await freshTenant();
    const { key: otherClient } = await api.createKey([tenant], SCOPES);
    const idempotencyKey = newIdempotencyKey();
    const first = await replaceDocument(tenant, 'u-1', key, { owner: 'mine' }, idempotencyKey);
    expectExecuted(first, 201);
    const theirs = await replaceDocument(tenant, 'u-1', otherClient, { owner: 'theirs', extra: 1 });
    expect(theirs.status).toBe(200);

    expectReplayOf(await replaceDocument(tenant, 'u-1', key, { owner: 'mine' }, idempotencyKey), first);
    expect((await readDocument(tenant, 'u-1', key)).json).toEqual({ owner: 'theirs', extra: 1 });
  });

  it('a merge: the repeat replays the first answer and the other client keeps its content', async () => {
    const { tenant, key } = await freshTenant();
    const { key: otherClient } = await api.createKey([tenant], SCOPES);
    await replaceDocument(tenant, 'u-1', key, { name: 'Ada', tier: 'free' });
    const idempotencyKey = newIdempotencyKey();
    const first = await mergeDocument(tenant, 'u-1', key, { tier: 'gold' }, idempotencyKey);
    expectExecuted(first, 200);
    expect(first.json).toEqual({ name: 'Ada', tier: 'gold' });
    const theirs = await mergeDocument(tenant, 'u-1', otherClient, { tier: 'platinum' });
    expect(theirs.status).toBe(200);

    expectReplayOf(await mergeDocument(tenant, 'u-1', key, { tier: 'gold' }, idempotencyKey), first);
    expect((await readDocument(tenant, 'u-1', key)).json).toEqual({ name: 'Ada', tier: 'platinum' });
  });

  it('a merge repeated after another client replaced the document: replayed, the replacement stays', async () => {
    const { tenant, key } = await freshTenant();
    const { key: otherClient } = await api.createKey([tenant], SCOPES);
    await replaceDocument(tenant, 'u-1', key, { name: 'Ada' });
    const idempotencyKey = newIdempotencyKey();
    const first = await mergeDocument(tenant, 'u-1', key, { tier: 'gold' }, idempotencyKey);
    expectExecuted(first, 200);
    expect((await replaceDocument(tenant, 'u-1', otherClient, { name: 'Grace' })).status).toBe(200);

    expectReplayOf(await mergeDocument(tenant, 'u-1', key, { tier: 'gold' }, idempotencyKey), first);
    expect((await readDocument(tenant, 'u-1', key)).json).toEqual({ name: 'Grace' });
  });
});
