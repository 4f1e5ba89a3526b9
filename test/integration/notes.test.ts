/** Endpoint 1 and the note rules through the local gateway and DynamoDB Local. */

import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asNoOne } from '#infra/local/emulators/record-aws-calls';
import { documentClient } from '#shared/store/dynamo-client';
import { inBundleRuntime } from '#test/support/runtime';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('notes');
let key: string;
let keyId: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ key, keyId } = await api.createKey([tenant], ['cxm:conversations.write']));
  await api.addConversation(tenant, { id: 'open' });
});
afterAll(() => api.close());

/** A JSON body `{"body":"<text>"}` of exactly `bytes` UTF-8 bytes, built from 2-byte characters where it can. */
function bodyOfBytes(bytes: number): string {
  const overhead = Buffer.byteLength('{"body":""}');
  const room = bytes - overhead;
  const text = 'é'.repeat(Math.floor(room / 2)) + 'a'.repeat(room % 2);
  const json = JSON.stringify({ body: text });
  expect(Buffer.byteLength(json)).toBe(bytes);
  return json;
}

describe('201 Created', () => {
  it('answers exactly the documented note, free of key material', async () => {
    const before = Date.now();
    const response = await api.postNote(tenant, 'open', key, { body: 'Customer called back' });
    expect(response.status).toBe(201);
    expect(response.json).toEqual({
      note: {
        id: expect.any(String),
        createdAt: expect.any(String),
        visibility: 'internal',
        author: { type: 'system', id: null, name: 'API' },
      },
    });
    const note = response.json.note as { id: string; createdAt: string };
    expect(Date.parse(note.createdAt)).toBeGreaterThanOrEqual(before - 5);
    expect(new Date(note.createdAt).toISOString()).toBe(note.createdAt);
    const raw = JSON.stringify(response.json);
    expect(raw).not.toContain(key);
    expect(raw).not.toContain(keyId);
    expect(raw).not.toContain(key.slice(17));
  });

  it('commits the note with its text beside the conversation', async () => {
    const response = await api.postNote(tenant, 'open', key, { body: 'Stored text ✓' });
    const id = (response.json.note as { id: string }).id;
    const notes = await api.conversations.listNotes(tenant, 'open');
    expect(notes.find((n) => n.id === id)).toMatchObject({
      body: 'Stored text ✓',
      visibility: 'internal',
      author: { type: 'system', id: null, name: 'API' },
    });
  });

  it('repeating an identical request creates distinct notes', async () => {
    const conversation = 'repeat';
    await api.addConversation(tenant, { id: conversation });
    const first = await api.postNote(tenant, conversation, key, { body: 'same' });
    const second = await api.postNote(tenant, conversation, key, { body: 'same' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect((first.json.note as { id: string }).id).not.toBe((second.json.note as { id: string }).id);
    expect(await api.conversations.listNotes(tenant, conversation)).toHaveLength(2);
  });

  it('accepts Content-Type with a UTF-8 charset', async () => {
    const response = await api.postNote(
      tenant,
      'open',
      key,
      { body: 'x' },
      { 'Content-Type': 'application/json; charset=utf-8' },
    );
    expect(response.status).toBe(201);
  });
});

describe('400 BadRequest for the body', () => {
  it.each<[string, unknown, RegExp]>([
    ['missing body', {}, /'body' is required/],
    ['empty body', { body: '' }, /'body' must not be empty/],
    ['blank body', { body: ' \t\n\u00a0\u2003' }, /'body' must not be blank/],
    ['number body', { body: 42 }, /'body' must be a string/],
    ['null body', { body: null }, /'body' must be a string/],
    ['object body', { body: { text: 'x' } }, /'body' must be a string/],
    ['unknown property', { body: 'x', pinned: true }, /Unknown property 'pinned'/],
    ['array', [{ body: 'x' }], /must be a JSON object/],
    ['string', 'x', /must be a JSON object/],
    ['null', null, /must be a JSON object/],
  ])('%s', async (_name, body, message) => {
    const response = await api.postNote(tenant, 'open', key, JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ code: 'BadRequest', message: expect.stringMatching(message) });
  });

  it('a body with a lone surrogate (not Unicode, cannot be stored as UTF-8) is 400 naming body; a real pair is fine', async () => {
    const refused = await api.postNote(tenant, 'open', key, '{"body":"refund \\ud83d approved"}');
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      code: 'BadRequest',
      message: expect.stringMatching(/'body' holds text that is not valid Unicode/),
    });
    expect((await api.postNote(tenant, 'open', key, '{"body":"refund \\ud83d\\ude00 approved"}')).status).toBe(201);
  });

  it('invalid JSON', async () => {
    const response = await api.postNote(tenant, 'open', key, '{"body": "x"');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ code: 'BadRequest', message: expect.stringMatching(/not valid JSON/) });
  });

  it('an empty request body', async () => {
    const response = await api.postNote(tenant, 'open', key, '');
    expect(response.status).toBe(400);
    expect(response.json.message).toMatch(/body is required/);
  });

  it('a Content-Type other than JSON', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']) {
      const response = await api.postNote(tenant, 'open', key, { body: 'x' }, { 'Content-Type': contentType });
      expect(response.status).toBe(400);
      expect(response.json.message).toMatch(/Content-Type/);
    }
  });

  it('an unknown query parameter, named in the message', async () => {
    const response = await api.fetch(`${api.notePath(tenant, 'open')}?notify=false`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ body: 'x' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'BadRequest', message: "Unknown query parameter 'notify'." });
  });

  it('writes nothing when refused', async () => {
    const conversation = 'refused';
    await api.addConversation(tenant, { id: conversation });
    await api.postNote(tenant, conversation, key, { body: '   ' });
    await api.postNote(tenant, conversation, key, { body: 'x', extra: 1 });
    expect(await api.conversations.listNotes(tenant, conversation)).toHaveLength(0);
  });
});

describe('limits', () => {
  it('accepts 20000 characters and refuses 20001, counting code points', async () => {
    expect((await api.postNote(tenant, 'open', key, { body: 'a'.repeat(20000) })).status).toBe(201);
    const tooLong = await api.postNote(tenant, 'open', key, { body: 'a'.repeat(20001) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.message).toMatch(/at most 20000 characters/);
    // 20000 code points but 21000 UTF-16 units (23000 bytes): accepted only when code points count.
    const astral = 'a'.repeat(19000) + '😀'.repeat(1000);
    expect(astral.length).toBe(21000);
    expect((await api.postNote(tenant, 'open', key, { body: astral })).status).toBe(201);
    expect((await api.postNote(tenant, 'open', key, { body: `${astral}a` })).status).toBe(400);
  });

  it('accepts a JSON body of exactly 32768 bytes and refuses 32769 with 413, counting UTF-8 bytes', async () => {
    const exact = await api.postNote(tenant, 'open', key, bodyOfBytes(32768));
    expect(exact.status).toBe(201);
    const over = await api.postNote(tenant, 'open', key, bodyOfBytes(32769));
    expect(over.status).toBe(413);
    expect(over.json).toEqual({ code: 'PayloadTooLarge', message: expect.stringMatching(/32768 bytes/) });
  });

  it('refuses an oversized body before parsing it (413 even when it is not JSON)', async () => {
    const response = await api.postNote(tenant, 'open', key, '{'.repeat(40000));
    expect(response.status).toBe(413);
  });

  it('accepts a conversationId of 512 characters and refuses 513', async () => {
    const long = 'c'.repeat(512);
    await api.addConversation(tenant, { id: long });
    expect((await api.postNote(tenant, long, key)).status).toBe(201);
    const tooLong = await api.postNote(tenant, `${long}c`, key);
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.message).toMatch(/'conversationId' must be at most 512 characters/);
  });

  it('treats a 512-character id too long for the store as an absent conversation', async () => {
    const response = await api.postNote(tenant, '😀'.repeat(512), key);
    expect(response.status).toBe(404);
  });

  it.each(['a%2Fb', 'a%2fb', 'a%5Cb', '%2F', '..%2Fother'])(
    'refuses the encoded separator in %s without effect',
    async (id) => {
      const decoded = decodeURIComponent(id);
      await api.addConversation(tenant, { id: decoded });
      const response = await api.postNote(tenant, id, key);
      expect(response.status).toBe(400);
      expect(response.json.message).toMatch(/must not contain/);
      expect(await api.conversations.listNotes(tenant, decoded)).toHaveLength(0);
    },
  );

  it('decodes other percent-encoded characters in the conversationId', async () => {
    await api.addConversation(tenant, { id: 'with space é' });
    expect((await api.postNote(tenant, 'with%20space%20%C3%A9', key)).status).toBe(201);
  });
});

describe('conversation rules', () => {
  const future = () => Date.now() + 3_600_000;

  it.each<[string, Record<string, unknown>]>([
    ['closed', { status: 'closed' }],
    ['merged', { mergedInto: 'other' }],
    ['locked', { lockedUntil: -1 }],
    ['realtime-owned', { realtimeOwner: 'voice-1' }],
  ])('409 Conflict when %s, and no note is written', async (name, fields) => {
    const id = `conflict-${name}`;
    await api.addConversation(tenant, { id, ...fields, ...(fields.lockedUntil ? { lockedUntil: future() } : {}) });
    const response = await api.postNote(tenant, id, key);
    expect(response.status).toBe(409);
    expect(response.json).toEqual({ code: 'Conflict', message: expect.any(String) });
    expect(await api.conversations.listNotes(tenant, id)).toHaveLength(0);
  });

  it.each<[string, string, Record<string, unknown> | undefined]>([
    ['absent', 'absent', undefined],
    ['not a customer conversation', 'internal', { type: 'internal' }],
    ['assigned to an inactive assignee', 'inactive', { assignee: { id: 'agent-9', active: false } }],
  ])('404 NotFound when %s', async (_name, id, fields) => {
    if (fields) await api.addConversation(tenant, { id, ...fields });
    const response = await api.postNote(tenant, id, key);
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ code: 'NotFound', message: expect.any(String) });
    expect(await api.conversations.listNotes(tenant, id)).toHaveLength(0);
  });

  it("404 for another tenant's conversation, which stays untouched", async () => {
    const other = uniqueTenant('other');
    await api.addConversation(other, { id: 'theirs' });
    const response = await api.postNote(tenant, 'theirs', key);
    expect(response.status).toBe(404);
    expect(await api.conversations.listNotes(other, 'theirs')).toHaveLength(0);
    expect(await api.conversations.listNotes(tenant, 'theirs')).toHaveLength(0);
  });

  it('accepts a conversation whose lock has expired', async () => {
    await api.addConversation(tenant, { id: 'lock-expired', lockedUntil: Date.now() - 1000 });
    expect((await api.postNote(tenant, 'lock-expired', key)).status).toBe(201);
  });

  it('accepts a conversation with an active assignee', async () => {
    await api.addConversation(tenant, { id: 'assigned', assignee: { id: 'agent-1', active: true } });
    expect((await api.postNote(tenant, 'assigned', key)).status).toBe(201);
  });
});

describe('concurrency', () => {
  it('20 concurrent notes on one conversation all commit with distinct ids', async () => {
    await api.addConversation(tenant, { id: 'busy' });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.postNote(tenant, 'busy', key, { body: `note ${i}` })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = responses.map((r) => (r.json.note as { id: string }).id);
    expect(new Set(ids).size).toBe(20);
    const stored = await api.conversations.listNotes(tenant, 'busy');
    expect(stored.map((n) => n.id).sort()).toEqual([...ids].sort());
    expect(stored.map((n) => n.body).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `note ${i}`).sort());
  });

  // Hooks the functions' own DynamoDB client, which only the in-process sources share with the
  // test; the race below proves the same over HTTP in both runtimes.
  it.skipIf(inBundleRuntime)(
    'checks the conversation in the same write: a close just before the write refuses the note',
    async () => {
      // Close the conversation from the outside at the last moment before the note's write reaches
      // DynamoDB: a read-then-write would have read "open" already and land the note anyway.
      const id = 'closed-at-the-last-moment';
      await api.addConversation(tenant, { id });
      const client = documentClient();
      const name = 'close-before-write';
      client.middlewareStack.add(
        (next, context) => async (args) => {
          const input = JSON.stringify(args.input);
          if (
            context.commandName !== 'GetItemCommand' &&
            context.commandName !== 'QueryCommand' &&
            input.includes(id) &&
            input.includes('NOTE#')
          ) {
            const other = new DynamoDBClient({});
            // Another party's write, not the function's (the IAM simulation's record of its calls).
            await asNoOne(() =>
              other.send(
                new UpdateItemCommand({
                  TableName: api.tables.conversations,
                  Key: { pk: { S: `${tenant}#${id}` }, sk: { S: 'CONVERSATION' } },
                  UpdateExpression: 'SET #s = :closed',
                  ExpressionAttributeNames: { '#s': 'status' },
                  ExpressionAttributeValues: { ':closed': { S: 'closed' } },
                }),
              ),
            );
            other.destroy();
          }
          return next(args);
        },
        { step: 'initialize', name },
      );
      try {
        const response = await api.postNote(tenant, id, key);
        expect(response.status).toBe(409);
        expect(await api.conversations.listNotes(tenant, id)).toHaveLength(0);
      } finally {
        client.middlewareStack.remove(name);
      }
    },
  );

  it('a note racing a close never lands on the closed conversation', async () => {
    for (let round = 0; round < 3; round++) {
      const id = `race-${round}`;
      await api.addConversation(tenant, { id });
      const early = Array.from({ length: 15 }, (_, i) => api.postNote(tenant, id, key, { body: `early ${i}` }));
      await new Promise((resolve) => setTimeout(resolve, 5 * round));
      await api.addConversation(tenant, { id, status: 'closed' });
      const afterClose = await Promise.all(
        Array.from({ length: 5 }, (_, i) => api.postNote(tenant, id, key, { body: `late ${i}` })),
      );
      const before = await Promise.all(early);
      expect(afterClose.map((r) => r.status)).toEqual(Array(5).fill(409));
      for (const response of before) expect([201, 409]).toContain(response.status);
      const committed = before.filter((r) => r.status === 201).map((r) => (r.json.note as { id: string }).id);
      const stored = await api.conversations.listNotes(tenant, id);
      expect(stored.map((n) => n.id).sort()).toEqual(committed.sort());
      expect(stored.some((n) => n.body.startsWith('late'))).toBe(false);
    }
  });
});
