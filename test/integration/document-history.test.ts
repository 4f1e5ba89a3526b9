/**
 * A provisioning document's history over HTTP, through the local gateway (in both runtimes): the
 * version every answer names (`Content-Location`, merges at once naming numbers without gaps),
 * one version read and cached, the versions listed newest first page by page, a document written
 * before versions were kept, a version restored as the other writes are made (preconditions, safe
 * retries), and what a number past the newest (404) or pruned by the retention (410) answers. This
 * file's stage keeps three versions per document.
 *
 * @group sources bundles
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '#shared/store/dynamo-client';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

process.env.CXM_DOCUMENT_VERSIONS_KEEP = '3';

let api: TestApi;
const tenant = uniqueTenant('history');
let key: string;
let keyId: string;
let readOnly: string;
const client = documentClient();

beforeAll(async () => {
  api = await startTestApi();
  ({ key, keyId } = await api.createKey([tenant], ['provisioning:bots.*']));
  ({ key: readOnly } = await api.createKey([tenant], ['provisioning:bots.read']));
});
afterAll(() => api.close());

const versions = (docId: string) => `/api/v1/provisioning/tenants/${tenant}/bots/${docId}/versions`;
const write = (method: 'POST' | 'PUT', docId: string, body: unknown, headers: Record<string, string> = {}) =>
  api.call(method, `${versions(docId)}/current`, key, { body, headers });
const read = (docId: string, n: number | string, headers: Record<string, string> = {}, k = key) =>
  api.call('GET', `${versions(docId)}/${n}`, k, { headers });
const restore = (docId: string, n: number | string, headers: Record<string, string> = {}, k = key) =>
  api.call('POST', `${versions(docId)}/${n}/restore`, k, { headers });
const list = (docId: string, query = '') => api.call('GET', `${versions(docId)}${query}`, key);

interface Entry {
  version: number;
  createdAt: string;
  etag: string;
  bytes: number;
  change: string;
  keyId?: string;
}

/** The version an answer's Content-Location names, checked to be the document's own URL. */
function locatedVersion(answer: { headers: Headers }, docId: string): number {
  const location = answer.headers.get('content-location') ?? '';
  expect(location).toMatch(new RegExp(`^http://[^/]+${versions(docId)}/\\d+$`));
  return Number(location.split('/').at(-1));
}

describe('every answer names its version', () => {
  it('the create, the replace, the merge and GET current each carry Content-Location of their version, beside the ETag', async () => {
    const created = await write('POST', 'named', { name: 'Helper' });
    const replaced = await write('POST', 'named', { name: 'Helper', tone: 'warm' });
    const merged = await write('PUT', 'named', { tone: 'dry' });
    // The fourth pushes the first out of this stage's three.
    const mergedAgain = await write('PUT', 'named', { tone: 'wry' });
    const answers = [created, replaced, merged, mergedAgain];
    expect(answers.map((answer) => locatedVersion(answer, 'named'))).toEqual([1, 2, 3, 4]);
    const current = await api.call('GET', `${versions('named')}/current`, key);
    expect(locatedVersion(current, 'named')).toBe(4);
    expect(current.headers.get('etag')).toBe(mergedAgain.headers.get('etag'));
  });

  // Thirty at once, within the deadline, are the contended group's (integration/concurrency).
  it('merges at once each name their own version, numbered without gaps or repeats', async () => {
    await write('POST', 'raced', { n: 0 });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => write('PUT', 'raced', { [`m${i}`]: i })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    const numbers = answers.map((answer) => locatedVersion(answer, 'raced')).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 8 }, (_, i) => i + 2));
    const current = await api.call('GET', `${versions('raced')}/current`, key);
    expect(Object.keys(current.json as object)).toHaveLength(9);
  });

  it('a keyed replay answers the Content-Location of the first answer and makes no version', async () => {
    const headers = { 'Idempotency-Key': `${tenant}-replay` };
    await write('POST', 'replayed', { v: 1 });
    const first = await write('POST', 'replayed', { v: 2 }, headers);
    const again = await write('POST', 'replayed', { v: 2 }, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-location')).toBe(first.headers.get('content-location'));
    expect(((await list('replayed')).json as Entry[]).map((entry) => entry.version)).toEqual([2, 1]);
  });
});

describe('one version', () => {
  it('answers that version as written, with its ETag, for a private cache to keep', async () => {
    const first = await write('POST', 'read-one', { name: 'First' });
    await write('PUT', 'read-one', { name: 'Second' });
    const answer = await read('read-one', 1);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ name: 'First' });
    expect(answer.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(locatedVersion(answer, 'read-one')).toBe(1);
    expect(answer.headers.get('cache-control')).toMatch(/^private, .*immutable/);
    const cached = await read('read-one', 1, { 'If-None-Match': String(first.headers.get('etag')) });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
  });

  it('a number past the newest is 404 naming the newest; no document is 404; a number not in digits is 400', async () => {
    await write('POST', 'short', { name: 'Only' });
    const past = await read('short', 2);
    expect([past.status, past.json]).toEqual([
      404,
      { code: 'NotFound', message: "Document 'short' has no version 2 yet: its newest is 1." },
    ]);
    expect((await read('nobody', 1)).status).toBe(404);
    for (const bad of ['0', '01', '1.0', '-1', 'first', '1e3']) {
      const answer = await read('short', bad);
      expect([bad, answer.status]).toEqual([bad, 400]);
      expect((answer.json as { message: string }).message).toMatch(/'version' must be a version number/);
    }
  });

  it('a version the retention pushed out is 410, saying what the stage keeps', async () => {
    for (const n of [1, 2, 3, 4]) await write('POST', 'pruned', { n });
    const gone = await read('pruned', 1);
    expect(gone.status).toBe(410);
    expect(gone.json).toEqual({
      code: 'NotFound',
      message: expect.stringContaining(
        'Version 1 is no longer kept: this stage keeps the last 3 versions of a document',
      ),
    });
    expect((await read('pruned', 2)).json).toEqual({ n: 2 });
    expect((await restore('pruned', 1)).status).toBe(410);
    // Version 2 put back as version 5, which pushes version 2 itself out.
    expect((await restore('pruned', 2)).json).toEqual({ n: 2 });
    expect((await read('pruned', 2)).status).toBe(410);
    expect(((await list('pruned')).json as Entry[]).map((entry) => entry.version)).toEqual([5, 4, 3]);
  });
});

describe('a document written before versions were kept', () => {
  it('names its present state as its version, lists it, and keeps it as it is written again', async () => {
    await write('POST', 'legacy', { era: 'old' });
    await write('PUT', 'legacy', { era: 'older still' });
    // As the release before versions left it: unmarked, and no history of its own.
    const pk = `${tenant}#bots#legacy`;
    await client.send(
      new UpdateCommand({
        TableName: api.tables.documents,
        Key: { pk: `${tenant}#bots`, sk: 'legacy' },
        UpdateExpression: 'REMOVE versioned',
      }),
    );
    for (const sk of [1, 2])
      await client.send(new DeleteCommand({ TableName: api.tables.documentVersions, Key: { pk, sk } }));
    const present = await api.call('GET', `${versions('legacy')}/current`, key);
    expect(locatedVersion(present, 'legacy')).toBe(2);
    expect(((await list('legacy')).json as Entry[]).map(({ version, change }) => [version, change])).toEqual([
      [2, 'merged'],
    ]);
    await write('PUT', 'legacy', { era: 'versioned' });
    expect(((await list('legacy')).json as Entry[]).map((entry) => entry.version)).toEqual([3, 2]);
    expect((await read('legacy', 2)).json).toEqual({ era: 'older still' });
    expect((await read('legacy', 1)).status).toBe(410);
  });
});

describe('the list', () => {
  it('lists the versions kept newest first: number, time, ETag, size, change and the key that made it', async () => {
    await write('POST', 'listed', { name: 'Helper' });
    await write('PUT', 'listed', { tone: 'dry' });
    const restored = await restore('listed', 1);
    const answer = await list('listed');
    expect(answer.status).toBe(200);
    const entries = answer.json as Entry[];
    expect(entries.map(({ version, change, keyId: by }) => ({ version, change, by }))).toEqual([
      { version: 3, change: 'restored', by: keyId },
      { version: 2, change: 'merged', by: keyId },
      { version: 1, change: 'created', by: keyId },
    ]);
    expect(entries[0]).toMatchObject({ etag: restored.headers.get('etag'), bytes: '{"name":"Helper"}'.length });
    expect(Date.parse(entries[2]!.createdAt)).toBeLessThanOrEqual(Date.parse(entries[0]!.createdAt));
    expect(answer.text).not.toContain(key);
  });

  it('pages with limit and the Link header, to the oldest kept and no further', async () => {
    for (const n of [1, 2, 3, 4, 5]) await write('POST', 'paged', { n });
    const pages: number[][] = [];
    let next: string | undefined = `${versions('paged')}?limit=2`;
    while (next) {
      const page = await api.call('GET', next, key);
      expect(page.status).toBe(200);
      pages.push((page.json as Entry[]).map((entry) => entry.version));
      const link = page.headers.get('link');
      const url = link ? new URL(/^<([^>]+)>; rel="next"$/.exec(link)![1]!) : undefined;
      next = url && url.pathname + url.search;
    }
    // The stage keeps three: 5, 4 and 3.
    expect(pages).toEqual([[5, 4], [3]]);
    expect((await list('paged', '?cursor=not-ours')).status).toBe(400);
  });

  it('is 404 for a document that does not exist', async () => {
    expect((await list('never-written')).status).toBe(404);
  });
});

describe('restore', () => {
  it('makes a new current version equal to the one restored, and the answer names it', async () => {
    await write('POST', 'restored', { name: 'Good', tone: 'warm' });
    await write('POST', 'restored', { name: 'Broken by a bad deploy' });
    const answer = await restore('restored', 1);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ name: 'Good', tone: 'warm' });
    expect(locatedVersion(answer, 'restored')).toBe(3);
    const current = await api.call('GET', `${versions('restored')}/current`, key);
    expect(current.json).toEqual({ name: 'Good', tone: 'warm' });
    expect(current.headers.get('etag')).toBe(answer.headers.get('etag'));
  });

  it('honours If-Match: a stale ETag is 412 and makes no version', async () => {
    const first = await write('POST', 'guarded', { v: 1 });
    const second = await write('POST', 'guarded', { v: 2 });
    const stale = await restore('guarded', 1, { 'If-Match': String(first.headers.get('etag')) });
    expect(stale.status).toBe(412);
    expect(((await list('guarded')).json as Entry[]).map((entry) => entry.version)).toEqual([2, 1]);
    const fresh = await restore('guarded', 1, { 'If-Match': String(second.headers.get('etag')) });
    expect([fresh.status, locatedVersion(fresh, 'guarded')]).toEqual([200, 3]);
  });

  it('a keyed retry answers the first restore again and makes no version; the key on another request is 422', async () => {
    await write('POST', 'retried', { v: 1 });
    await write('POST', 'retried', { v: 2 });
    const headers = { 'Idempotency-Key': `${tenant}-restore` };
    const first = await restore('retried', 1, headers);
    const again = await restore('retried', 1, headers);
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
    expect(again.headers.get('content-location')).toBe(first.headers.get('content-location'));
    expect(((await list('retried')).json as Entry[]).map((entry) => entry.version)).toEqual([3, 2, 1]);
    expect((await restore('retried', 2, headers)).status).toBe(422);
  });

  it('needs the write scope: a read-only key reads versions and may not restore them', async () => {
    await write('POST', 'scoped', { v: 1 });
    expect((await read('scoped', 1, {}, readOnly)).status).toBe(200);
    expect((await restore('scoped', 1, {}, readOnly)).status).toBe(403);
    expect((await read('scoped', 2)).status).toBe(404);
  });

  it('a number past the newest is 404, and so is a document that does not exist', async () => {
    await write('POST', 'restore-past', { v: 1 });
    expect((await restore('restore-past', 2)).json).toEqual({
      code: 'NotFound',
      message: "Document 'restore-past' has no version 2 yet: its newest is 1.",
    });
    expect((await restore('restore-nobody', 1)).status).toBe(404);
  });
});
