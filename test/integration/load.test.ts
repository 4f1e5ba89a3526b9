/**
 * A bounded load through the local gateway: 12 clients of two tenants for about 3 seconds on
 * loopback, each cycling through writes and reads of several routes plus one request that must be
 * refused. Judged by outcomes, never by speed (npm run bench measures that): no 5xx, every answer
 * the one its request calls for and described by the OpenAPI document, and afterwards no write
 * lost, none added, none in the other tenant.
 *
 * @group contended
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { type ApiAnswer, callApi, collectionPath, documentPath, noteId, notePath } from '#test/support/call-api';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

const CLIENTS = 12;
const RUN_MS = 3000;
const CONVERSATIONS = ['c-0', 'c-1', 'c-2', 'c-3'];

let api: TestApi;
const tenants = [uniqueTenant('load-a'), uniqueTenant('load-b')] as const;
const keys: string[] = [];

beforeAll(async () => {
  // The cloud's default authorizer cache TTL; no rate limit (the point is the API, not the plan).
  api = await startTestApi({ authCacheTtlSeconds: 60 });
  const now = Date.now();
  for (const tenant of tenants) {
    keys.push(
      (
        await api.createKey(
          [tenant],
          ['cxm:conversations.write', 'provisioning:*', 'reporting:read', 'voc:recordings.read'],
        )
      ).key,
    );
    for (const id of CONVERSATIONS) await api.addConversation(tenant, { id });
    await api.addConversation(tenant, { id: 'closed', status: 'closed' });
    await api.addDocument(tenant, 'users', 'shared', { members: {} });
    await api.vocJobs.put(tenant, {
      id: 'job-1',
      status: 'started',
      started: now,
      file: 'recordings/r1.wav',
      recordingId: 'r1',
    });
    await api.reportingRows.putRows(
      tenant,
      'assistant',
      Array.from({ length: 20 }, (_, i) =>
        shapeRow('assistant', tenant, { ID: `a-${i}`, Datetime: now - (i + 1) * 60_000, BotName: 'Helper' }),
      ),
    );
  }
});
afterAll(() => api.close());

interface Outcome {
  client: number;
  op: string;
  expected: number[];
  answer: ApiAnswer;
  /** What was written, for the check afterwards. */
  note?: { conversation: string; body: string };
  own?: { seq: number };
  merged?: { member: string; value: number };
}

/** One client's cycle of requests; `seq` counts its cycles. */
async function step(client: number, seq: number, slot: number): Promise<Outcome> {
  const tenant = tenants[client % 2]!;
  const other = tenants[(client + 1) % 2]!;
  const key = keys[client % 2]!;
  const own = `own-${client}`;
  const call = (method: string, path: string, body?: unknown) => callApi(api.url, method, path, key, body);
  switch (slot) {
    case 0: {
      const answer = await call('POST', documentPath(tenant, 'users', own), { client, seq });
      return { client, op: 'replace own document', expected: seq === 0 ? [201] : [200], answer, own: { seq } };
    }
    case 1: {
      const conversation = CONVERSATIONS[(client + seq) % CONVERSATIONS.length]!;
      const body = `client ${client} note ${seq}`;
      return {
        client,
        op: 'add note',
        expected: [201],
        answer: await call('POST', notePath(tenant, conversation), { body }),
        note: { conversation, body },
      };
    }
    case 2: {
      const answer = await call('GET', documentPath(tenant, 'users', own));
      // Reads are strongly consistent: a client reads back exactly what it last wrote.
      expect(answer.json, `client ${client} reads its own write`).toEqual({ client, seq });
      return { client, op: 'read own document', expected: [200], answer };
    }
    case 3: {
      const member = `c${client}s${seq}`;
      const answer = await call('PUT', documentPath(tenant, 'users', 'shared'), { members: { [member]: seq } });
      return { client, op: 'merge shared document', expected: [200], answer, merged: { member, value: seq } };
    }
    case 4:
      return {
        client,
        op: 'list documents',
        expected: [200],
        answer: await call('GET', `${collectionPath(tenant, 'users')}?limit=5`),
      };
    case 5:
      return {
        client,
        op: 'list assistant conversations',
        expected: [200],
        answer: await call('GET', `/api/v1/reporting/tenants/${tenant}/assistant/conversations?limit=10`),
      };
    case 6:
      return {
        client,
        op: 'get job status',
        expected: [200],
        answer: await call('GET', `/api/v1/voc/tenants/${tenant}/recording/job-1/status`),
      };
    default: {
      // One refusal per cycle, a different one each time: each must be exactly its error.
      const refusals: Array<[string, number, () => Promise<ApiAnswer>]> = [
        ['blank note', 400, () => call('POST', notePath(tenant, 'c-0'), { body: '   ' })],
        ['note on a closed conversation', 409, () => call('POST', notePath(tenant, 'closed'), { body: 'refused' })],
        ['absent document', 404, () => call('GET', documentPath(tenant, 'users', 'absent'))],
        ["the other tenant's document", 403, () => call('GET', documentPath(other, 'users', 'shared'))],
        ['merge into an absent document', 404, () => call('PUT', documentPath(tenant, 'users', 'absent'), { x: 1 })],
      ];
      const [op, status, send] = refusals[(client + seq) % refusals.length]!;
      return { client, op, expected: [status], answer: await send() };
    }
  }
}

const SLOTS = 8;

describe('a bounded mixed load, two tenants', () => {
  it('no 5xx, every answer the expected one, and no write lost, added or misplaced', async () => {
    const outcomes: Outcome[] = [];
    const stopAt = Date.now() + RUN_MS;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        // At least two whole cycles each, however slow the machine, then until the time is up.
        for (let seq = 0; seq < 2 || Date.now() < stopAt; seq++) {
          for (let slot = 0; slot < SLOTS; slot++) outcomes.push(await step(client, seq, slot));
        }
      }),
    );

    const unexpected = outcomes.filter((o) => !o.expected.includes(o.answer.status));
    expect(
      unexpected.map((o) => `client ${o.client} ${o.op}: ${o.answer.status} ${JSON.stringify(o.answer.json)}`),
    ).toEqual([]);
    expect(outcomes.filter((o) => o.answer.status >= 500)).toEqual([]);

    for (const [index, tenant] of tenants.entries()) {
      const mine = outcomes.filter((o) => o.client % 2 === index);
      // Every 201 note is stored with its text, in its conversation, and nothing else is.
      for (const conversation of [...CONVERSATIONS, 'closed']) {
        const expected = mine
          .filter((o) => o.note?.conversation === conversation)
          .map((o) => ({ id: noteId(o.answer), body: o.note!.body }))
          .sort((a, b) => a.id.localeCompare(b.id));
        const stored = (await api.conversations.listNotes(tenant, conversation))
          .map((n) => ({ id: n.id, body: n.body }))
          .sort((a, b) => a.id.localeCompare(b.id));
        expect(stored, `${tenant} ${conversation}`).toEqual(expected);
      }
      // Each client's own document is its last write; the shared one holds every merge.
      for (let client = index; client < CLIENTS; client += 2) {
        const last = mine.filter((o) => o.client === client && o.own).at(-1)!.own!.seq;
        expect(JSON.parse((await api.documents.read(tenant, 'users', `own-${client}`))!.json)).toEqual({
          client,
          seq: last,
        });
      }
      const members = Object.fromEntries(mine.filter((o) => o.merged).map((o) => [o.merged!.member, o.merged!.value]));
      expect(JSON.parse((await api.documents.read(tenant, 'users', 'shared'))!.json)).toEqual({ members });
      // The other tenant's clients wrote nothing here.
      const ownDocs = (await api.documents.list(tenant, 'users', { limit: 100, maxBytes: 1e6 })).entries.map(
        (e) => e.id,
      );
      expect(ownDocs.sort()).toEqual(
        ['shared', ...Array.from({ length: CLIENTS / 2 }, (_, i) => `own-${2 * i + index}`)].sort(),
      );
    }
  }, 120_000);
});
