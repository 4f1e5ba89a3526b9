/**
 * Races a client can cause or meet, through the local gateway: a key revoked while requests are
 * in flight, notes racing the change that stops a conversation accepting them, and merges racing
 * merges and replaces of one document. None is judged by a clock: a request counts as "after" an
 * event when it was sent after the event's call had returned, which is what a client can know.
 * (notes.test.ts and provisioning.test.ts have the smaller races: single notes around a close,
 * one replace against one merge.)
 *
 * @group contended
 */

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNAUTHENTICATED_MESSAGE } from '#shared/api/api-error';
import { documentClient } from '#shared/store/dynamo-client';
import { type ApiAnswer, callApi, documentPath, noteId, notePath } from '#test/support/call-api';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('race');

beforeAll(async () => {
  // TTL 0: every request asks the authorizer, so a revocation is seen by the next request.
  api = await startTestApi({ authCacheTtlSeconds: 0 });
});
afterAll(() => api.close());

interface Sent {
  /** Whether the event had completed when this request was sent. */
  afterEvent: boolean;
  body: string;
  answer: ApiAnswer;
}

/**
 * `clients` clients send requests one after another; once `ready()` holds, `event` runs and the
 * clients go on until each has sent `after` requests past its completion.
 */
async function raceAgainst(options: {
  clients: number;
  send: (client: number, seq: number) => Promise<{ body: string; answer: ApiAnswer }>;
  ready: (sent: Sent[]) => boolean;
  event: () => Promise<void>;
  after: number;
}): Promise<Sent[]> {
  const sent: Sent[] = [];
  let eventDone = false;
  const clients = Array.from({ length: options.clients }, async (_, client) => {
    let sentAfter = 0;
    for (let seq = 0; sentAfter < options.after; seq++) {
      const afterEvent = eventDone;
      const { body, answer } = await options.send(client, seq);
      sent.push({ afterEvent, body, answer });
      if (afterEvent) sentAfter++;
    }
  });
  while (!options.ready(sent)) await new Promise((resolve) => setTimeout(resolve, 5));
  await options.event();
  eventDone = true;
  await Promise.all(clients);
  return sent;
}

describe('a key revoked while requests are in flight (authorizer cache TTL 0)', () => {
  it('requests in flight may finish; none sent after the revocation succeeds; every 2xx write is stored', async () => {
    const { key, keyId } = await api.createKey([tenant], ['cxm:conversations.write', 'provisioning:*']);
    await api.addConversation(tenant, { id: 'revocation' });
    await api.addDocument(tenant, 'users', 'revocation', { name: 'Ada' });
    const sent = await raceAgainst({
      clients: 6,
      send: async (client, seq) => {
        const body = `client ${client} request ${seq}`;
        const answer =
          seq % 2 === 0
            ? await callApi(api.url, 'POST', notePath(tenant, 'revocation'), key, { body })
            : await callApi(api.url, 'GET', documentPath(tenant, 'users', 'revocation'), key);
        return { body, answer };
      },
      ready: (s) => s.filter((r) => r.answer.status < 300).length >= 12,
      event: async () => void (await api.keys.revoke(keyId, new Date())),
      after: 4,
    });

    for (const { answer } of sent) expect([200, 201, 401]).toContain(answer.status);
    const after = sent.filter((r) => r.afterEvent);
    expect(after.length).toBeGreaterThanOrEqual(24);
    for (const { answer } of after)
      expect(answer).toMatchObject({
        status: 401,
        json: { code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE },
      });
    const created = sent.filter((r) => r.answer.status === 201);
    const stored = await api.conversations.listNotes(tenant, 'revocation');
    expect(stored.map((n) => ({ id: n.id, body: n.body })).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      created.map((r) => ({ id: noteId(r.answer), body: r.body })).sort((a, b) => a.id.localeCompare(b.id)),
    );
  });
});

describe('notes racing the change that stops a conversation accepting them', () => {
  const stoppers: Array<[string, string, Record<string, unknown>, number]> = [
    ['closed', 'SET #status = :value', { ':value': 'closed' }, 409],
    ['merged into another', 'SET mergedInto = :value', { ':value': 'other-conversation' }, 409],
    ['taken by a realtime owner', 'SET realtimeOwner = :value', { ':value': 'voice-7' }, 409],
    ['assigned to an inactive assignee', 'SET assignee = :value', { ':value': { id: 'agent-9', active: false } }, 404],
  ];

  it.each(stoppers)(
    '%s: every 201 note is stored, every note sent after the change is refused, and no other note lands',
    async (name, update, values, refusal) => {
      const { key } = await api.createKey([tenant], ['cxm:conversations.write']);
      const conversation = `stopped-${name.replaceAll(' ', '-')}`;
      await api.addConversation(tenant, { id: conversation });
      const sent = await raceAgainst({
        clients: 6,
        send: async (client, seq) => {
          const body = `client ${client} note ${seq}`;
          return { body, answer: await callApi(api.url, 'POST', notePath(tenant, conversation), key, { body }) };
        },
        ready: (s) => s.filter((r) => r.answer.status === 201).length >= 12,
        // As the system owning conversations would: one attribute changed in place.
        event: async () => {
          await documentClient().send(
            new UpdateCommand({
              TableName: api.tables.conversations,
              Key: { pk: `${tenant}#${conversation}`, sk: 'CONVERSATION' },
              UpdateExpression: update,
              ...(update.includes('#status') && { ExpressionAttributeNames: { '#status': 'status' } }),
              ExpressionAttributeValues: values,
            }),
          );
        },
        after: 3,
      });

      for (const { answer } of sent) expect([201, refusal]).toContain(answer.status);
      for (const { answer } of sent.filter((r) => r.afterEvent)) expect(answer.status).toBe(refusal);
      const created = sent.filter((r) => r.answer.status === 201).map((r) => ({ id: noteId(r.answer), body: r.body }));
      expect(created.length).toBeGreaterThanOrEqual(12);
      const stored = (await api.conversations.listNotes(tenant, conversation)).map((n) => ({ id: n.id, body: n.body }));
      expect(stored.sort((a, b) => a.id.localeCompare(b.id))).toEqual(created.sort((a, b) => a.id.localeCompare(b.id)));
    },
  );
});

describe('merges racing merges and replaces', () => {
  type Doc = { gen?: number; members?: Record<string, number> };

  it('30 concurrent merges of distinct members all survive, as 30 versions numbered without gaps or repeats', async () => {
    const { key } = await api.createKey([tenant], ['provisioning:*']);
    const path = documentPath(tenant, 'users', 'distinct-members');
    expect((await callApi(api.url, 'POST', path, key, { base: true })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => callApi(api.url, 'PUT', path, key, { [`m${i}`]: i })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(200));
    const versions = answers.map((answer) => Number(answer.headers.get('content-location')?.split('/').at(-1)));
    expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
    const final = (await callApi(api.url, 'GET', path, key)).json;
    expect(final).toEqual({ base: true, ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`m${i}`, i])) });
  });

  it('every merge applied after the last replace survives, none from before it does, and every answer is a whole document', async () => {
    const { key } = await api.createKey([tenant], ['provisioning:*']);
    for (let round = 0; round < 3; round++) {
      const docId = `contended-${round}`;
      const path = documentPath(tenant, 'users', docId);
      expect((await callApi(api.url, 'POST', path, key, { gen: 0 })).status).toBe(201);
      // 16 merges into one nested object and 3 replaces, started interleaved.
      const requests = Array.from({ length: 19 }, (_, i) =>
        i % 6 === 5
          ? { replace: (i + 1) / 6, answer: callApi(api.url, 'POST', path, key, { gen: (i + 1) / 6 }) }
          : { merge: `m${i}`, value: i, answer: callApi(api.url, 'PUT', path, key, { members: { [`m${i}`]: i } }) },
      );
      const answers = await Promise.all(requests.map((r) => r.answer));
      const final = (await callApi(api.url, 'GET', path, key)).json as Doc;

      expect(answers.map((a) => a.status)).toEqual(Array(19).fill(200));
      // The last replace decides `gen`; only merges applied after it are in `members`.
      expect([1, 2, 3]).toContain(final.gen);
      expect(Object.keys(final).every((k) => k === 'gen' || k === 'members')).toBe(true);
      for (const [i, request] of requests.entries()) {
        const answer = answers[i]!.json as Doc;
        if ('replace' in request) {
          expect(answer).toEqual({ gen: request.replace });
          continue;
        }
        // The merge's answer is the document it wrote: its member, on top of some replace's `gen`.
        expect(answer.members?.[request.merge!]).toBe(request.value);
        expect([0, 1, 2, 3]).toContain(answer.gen);
        const survived = final.members?.[request.merge!] === request.value;
        expect(survived, `${request.merge} wrote on gen ${answer.gen}, final gen ${final.gen}`).toBe(
          answer.gen === final.gen,
        );
      }
      for (const [member, value] of Object.entries(final.members ?? {})) expect(member).toBe(`m${value}`);
    }
  });
});
