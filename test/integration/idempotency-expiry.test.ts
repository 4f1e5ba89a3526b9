/**
 * An Idempotency-Key lasts CXM_IDEMPOTENCY_TTL_HOURS (24 by default): past that, the same key and
 * request run again as new, whether or not the table still holds the old record (DynamoDB's TTL
 * deletes late). The functions read the variable at cold start, so this file sets a TTL of seconds
 * before its gateway starts; it runs in a process of its own, and in bundle mode the local runtime
 * hands the variable to the bundles. The rest of the behaviour is in idempotency.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { documentPath, notePath } from '#test/support/call-api';
import { type Answer, expectExecuted, expectReplayOf } from '#test/support/idempotent-answers';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

// Hoisted above the imports: nothing may read the variable before it is set.
const TTL_HOURS = vi.hoisted(() => {
  // 3.6 s: long enough for an immediate repeat to be a replay on a slow machine, short enough to wait out.
  const hours = 0.001;
  process.env.CXM_IDEMPOTENCY_TTL_HOURS = String(hours);
  return hours;
});
const TTL_MS = TTL_HOURS * 3_600_000;
/** Past the TTL, with room for an expiry kept in whole seconds and rounded up. */
const EXPIRY_MARGIN_MS = 1500;

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

const noteIdOf = (answer: Answer) => (answer.json as { note: { id: string } }).note.id;

describe('an expired Idempotency-Key', () => {
  it('runs the same request again as new, and records that run for the next repeat', async () => {
    const tenant = uniqueTenant('idem-exp');
    const { key } = await api.createKey([tenant], ['cxm:conversations.write', 'provisioning:*']);
    await api.addConversation(tenant, { id: 'c-1' });
    const idempotencyKey = `idem-${randomUUID()}`;
    const headers = { 'Idempotency-Key': idempotencyKey };
    const note = () => api.call('POST', notePath(tenant, 'c-1'), key, { body: { body: 'once a TTL' }, headers });
    const replace = () =>
      api.call('POST', documentPath(tenant, 'users', 'u-1'), key, {
        body: { v: 1 },
        headers: { 'Idempotency-Key': `${idempotencyKey}-doc` },
      });

    // Each function served once first, without a key: in bundle mode a function's cold start on a
    // busy machine takes a second or more, which must not eat the TTL between a record and the
    // calls that still have to find it live.
    await api.addConversation(tenant, { id: 'c-warm' });
    expect((await api.call('POST', notePath(tenant, 'c-warm'), key, { body: { body: 'warm-up' } })).status).toBe(201);
    expect((await api.call('POST', documentPath(tenant, 'users', 'u-warm'), key, { body: { v: 0 } })).status).toBe(201);
    expect((await api.call('PUT', documentPath(tenant, 'users', 'ghost'), key, { body: { v: 0 } })).status).toBe(404);

    // Each repeat straight after its first call: within the TTL the key holds, so what changes
    // later is the expiry and nothing else.
    const firstNote = await note();
    expectExecuted(firstNote, 201);
    expectReplayOf(await note(), firstNote);
    const firstReplace = await replace();
    expectExecuted(firstReplace, 201);
    expectReplayOf(await replace(), firstReplace);

    // A merge of an absent document reads the key's record (no write can tell): the note's live
    // record makes it 422, another request...
    const mergeAbsent = () => api.call('PUT', documentPath(tenant, 'users', 'ghost'), key, { body: { v: 2 }, headers });
    expect((await mergeAbsent()).status).toBe(422);

    // Both records were written before now.
    await sleep(TTL_MS + EXPIRY_MARGIN_MS);

    // ...and once it has expired, the merge is new: 404, as without a key.
    expect(await mergeAbsent()).toMatchObject({ status: 404, json: { code: 'NotFound' } });

    const secondNote = await note();
    expectExecuted(secondNote, 201);
    expect(noteIdOf(secondNote)).not.toBe(noteIdOf(firstNote));
    // The new run is recorded in turn.
    expectReplayOf(await note(), secondNote);
    const stored = (await api.conversations.listNotes(tenant, 'c-1')).map((n) => n.id).sort();
    expect(stored).toEqual([noteIdOf(firstNote), noteIdOf(secondNote)].sort());
    // The document exists by now, so the replace run afresh says 200.
    expectExecuted(await replace(), 200);
  });
});
