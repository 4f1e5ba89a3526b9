/**
 * Conditional requests on provisioning documents (RFC 9110 sections 8.8.3 and 13), through the local
 * gateway and DynamoDB Local: the ETag every write and read answers, If-None-Match on GET (304),
 * If-Match and If-None-Match: * on POST replace and PUT merge (412), malformed conditions (400), the
 * lost update they prevent, and their meeting with Idempotency-Key. Everything is opt-in: a request
 * without these headers behaves as provisioning.test.ts describes. Every test has its own tenant.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentPath, expectWellFormedError } from '#test/support/call-api';
import { createRawClient } from '#test/support/raw-client';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

type Answer = Awaited<ReturnType<TestApi['call']>>;
type RequestHeaders = Record<string, string>;

const COLLECTION = 'users';
/** A strong entity tag: quoted etagc characters, no `W/` (RFC 9110 section 8.8.3). */
const STRONG_ETAG = /^"[\x21\x23-\x7e]+"$/;

/** One client of a fresh tenant: a key with `scopes` on it, and the document routes. */
async function newClient(scopes = ['provisioning:*'], tenant = uniqueTenant('cond')) {
  const { key } = await api.createKey([tenant], scopes);
  const path = (docId: string) => documentPath(tenant, COLLECTION, docId);
  return {
    tenant,
    key,
    get: (docId: string, headers: RequestHeaders = {}) => api.call('GET', path(docId), key, { headers }),
    post: (docId: string, body: unknown, headers: RequestHeaders = {}) =>
      api.call('POST', path(docId), key, { body, headers }),
    put: (docId: string, body: unknown, headers: RequestHeaders = {}) =>
      api.call('PUT', path(docId), key, { body, headers }),
    /** POST replace or PUT merge, for the cases both must pass alike. */
    write: (method: 'POST' | 'PUT', docId: string, body: unknown, headers: RequestHeaders = {}) =>
      api.call(method, path(docId), key, { body, headers }),
  };
}
type Client = Awaited<ReturnType<typeof newClient>>;

/** The ETag of an answer, which must be there and strong. */
function etagOf(answer: Answer): string {
  const tag = answer.headers.get('etag');
  expect(tag, `${answer.status} ${answer.text} has no ETag`).not.toBeNull();
  expect(tag).toMatch(STRONG_ETAG);
  return tag!;
}

/** A 412: the contract's error with code Conflict. */
function expectPreconditionFailed(answer: Answer): void {
  expect(answer.status, answer.text).toBe(412);
  expectWellFormedError(answer);
  expect(answer.json).toMatchObject({ code: 'Conflict' });
}

/** The document as stored now, and its tag: what a refused write must leave alone. */
async function current(client: Client, docId: string): Promise<{ json: unknown; etag: string }> {
  const read = await client.get(docId);
  expect(read.status, read.text).toBe(200);
  return { json: read.json, etag: etagOf(read) };
}

describe('ETag', () => {
  it('every write answers a strong ETag, a new one each time (a replace with identical content too), and GET answers the last one', async () => {
    const client = await newClient();
    // No precondition headers anywhere here: the plain routes behave as before, with a tag added.
    const created = await client.post('doc', { name: 'Ada', n: 1 });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ name: 'Ada', n: 1 });
    const createdTag = etagOf(created);
    expect(await current(client, 'doc')).toEqual({ json: { name: 'Ada', n: 1 }, etag: createdTag });
    // Reading does not move the tag.
    expect(etagOf(await client.get('doc'))).toBe(createdTag);

    const sameAgain = await client.post('doc', { name: 'Ada', n: 1 });
    expect(sameAgain.status).toBe(200);
    const replacedTag = etagOf(sameAgain);
    expect(await current(client, 'doc')).toEqual({ json: { name: 'Ada', n: 1 }, etag: replacedTag });

    const merged = await client.put('doc', { n: 2 });
    expect(merged.status).toBe(200);
    expect(merged.json).toEqual({ name: 'Ada', n: 2 });
    const mergedTag = etagOf(merged);
    expect(await current(client, 'doc')).toEqual({ json: { name: 'Ada', n: 2 }, etag: mergedTag });

    expect(new Set([createdTag, replacedTag, mergedTag]).size).toBe(3);
  });
});

describe('GET with If-None-Match', () => {
  it.each([
    ['the current tag', (tag: string) => tag],
    ['its weak form (weak comparison)', (tag: string) => `W/${tag}`],
    ['a list holding it', (tag: string) => `"not-this-one", ${tag}, W/"nor-this"`],
    ['*', () => '*'],
  ])('%s is 304 Not Modified with no body and the current ETag', async (_name, header) => {
    const client = await newClient();
    await client.post('doc', { v: 1 });
    const tag = etagOf(await client.put('doc', { v: 2 }));
    const answer = await client.get('doc', { 'If-None-Match': header(tag) });
    expect(answer.status).toBe(304);
    expect(answer.text).toBe('');
    expect(answer.headers.get('etag')).toBe(tag);
  });

  it('a tag that is no longer current, or a list of others, is 200 with the document and its ETag', async () => {
    const client = await newClient();
    const old = etagOf(await client.post('doc', { v: 1 }));
    const now = etagOf(await client.put('doc', { v: 2 }));
    for (const header of [old, `W/${old}`, '"never-issued"', `"a", ${old}, "b"`]) {
      const answer = await client.get('doc', { 'If-None-Match': header });
      expect(answer.status, header).toBe(200);
      expect(answer.json).toEqual({ v: 2 });
      expect(answer.headers.get('etag')).toBe(now);
    }
  });

  it('an absent document is 404 whatever the header', async () => {
    const client = await newClient();
    for (const header of ['*', '"never-issued"', 'W/"never-issued"']) {
      const answer = await client.get('absent', { 'If-None-Match': header });
      expect(answer.status, header).toBe(404);
      expect(answer.json).toMatchObject({ code: 'NotFound' });
    }
  });
});

describe('If-Match on POST replace and PUT merge', () => {
  const bodies = { POST: { v: 'replaced' }, PUT: { patched: true } } as const;

  it.each(['POST', 'PUT'] as const)(
    '%s proceeds with the current tag, a list holding it, or * (the document exists)',
    async (method) => {
      const client = await newClient();
      let tag = etagOf(await client.post('doc', { v: 0 }));
      for (const header of [(t: string) => t, (t: string) => `"stale", ${t}`, () => '*']) {
        const answer = await client.write(method, 'doc', bodies[method], { 'If-Match': header(tag) });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.json).toEqual(method === 'POST' ? { v: 'replaced' } : { v: 0, patched: true });
        const next = etagOf(answer);
        expect(next).not.toBe(tag);
        expect(await current(client, 'doc')).toEqual({ json: answer.json, etag: next });
        tag = next;
      }
    },
  );

  it.each(['POST', 'PUT'] as const)(
    '%s with a stale tag, the weak form of the current one, or an unknown tag is 412 and changes nothing',
    async (method) => {
      const client = await newClient();
      const stale = etagOf(await client.post('doc', { v: 1 }));
      const now = etagOf(await client.put('doc', { v: 2 }));
      // W/ never matches If-Match: it needs strong comparison (RFC 9110 section 13.1.1).
      for (const header of [stale, `W/${now}`, '"never-issued"', `"a", W/${now}, ${stale}`]) {
        expectPreconditionFailed(await client.write(method, 'doc', bodies[method], { 'If-Match': header }));
        expect(await current(client, 'doc'), header).toEqual({ json: { v: 2 }, etag: now });
      }
    },
  );

  it.each(['POST', 'PUT'] as const)(
    '%s on an absent document is 412 (not 404) for a tag or *, and creates nothing',
    async (method) => {
      const client = await newClient();
      for (const header of ['*', '"never-issued"']) {
        expectPreconditionFailed(await client.write(method, 'absent', bodies[method], { 'If-Match': header }));
        expect((await client.get('absent')).status, header).toBe(404);
      }
    },
  );

  it('a tag of the same document id in another tenant does not match', async () => {
    const [mine, theirs] = [await newClient(), await newClient()];
    await mine.post('twin', { owner: 'mine' });
    const theirTag = etagOf(await theirs.post('twin', { owner: 'theirs' }));
    const before = await current(mine, 'twin');
    expectPreconditionFailed(await mine.put('twin', { taken: true }, { 'If-Match': theirTag }));
    expect(await current(mine, 'twin')).toEqual(before);
  });
});

describe('POST with If-None-Match: * (create only)', () => {
  it('creates an absent document (201) and refuses to replace an existing one (412), leaving it as it was', async () => {
    const client = await newClient();
    const created = await client.post('doc', { v: 'first' }, { 'If-None-Match': '*' });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ v: 'first' });
    const tag = etagOf(created);
    expectPreconditionFailed(await client.post('doc', { v: 'second' }, { 'If-None-Match': '*' }));
    expect(await current(client, 'doc')).toEqual({ json: { v: 'first' }, etag: tag });
  });

  it('of two concurrent creates of one document, one is 201 and the other 412, and the stored document is the winner’s', async () => {
    const client = await newClient();
    for (let round = 0; round < 5; round++) {
      const docId = `created-${round}`;
      const answers = await Promise.all(
        ['a', 'b'].map((writer) => client.post(docId, { writer }, { 'If-None-Match': '*' })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 412]);
      const winner = answers.find((a) => a.status === 201)!;
      expectPreconditionFailed(answers.find((a) => a.status === 412)!);
      expect(await current(client, docId)).toEqual({ json: winner.json, etag: etagOf(winner) });
    }
  });
});

describe('malformed conditions', () => {
  const routes = [
    ['GET', 'If-None-Match'],
    ['POST', 'If-Match'],
    ['PUT', 'If-Match'],
    ['POST', 'If-None-Match'],
  ] as const;
  const values = [
    ['an unquoted tag', 'abc'],
    ['an unterminated quote', '"abc'],
    ['a weak prefix on an unquoted tag', 'W/abc'],
  ] as const;
  const cases = routes.flatMap(([method, header]) =>
    values.map(([what, value]) => [method, header, what, value] as const),
  );

  it.each(cases)(
    '%s with %s: %s is 400 BadRequest naming the header, and changes nothing',
    async (method, header, _what, value) => {
      const client = await newClient();
      const before = etagOf(await client.post('doc', { v: 1 }));
      const answer =
        method === 'GET'
          ? await client.get('doc', { [header]: value })
          : await client.write(method, 'doc', { v: 2 }, { [header]: value });
      expect(answer.status, answer.text).toBe(400);
      expectWellFormedError(answer);
      expect(answer.json).toMatchObject({ code: 'BadRequest', message: expect.stringContaining(header) });
      expect(await current(client, 'doc')).toEqual({ json: { v: 1 }, etag: before });
    },
  );
});

describe('a condition on several header lines', () => {
  // RFC 9110 section 5.3: the lines of a list field are one list. API Gateway's `headers` keeps the
  // last line only; the current tag on the first line must count all the same.
  it.each([
    ['If-None-Match on POST', 'If-None-Match', 412],
    ['If-Match on PUT', 'If-Match', 200],
  ] as const)('%s: every line counts', async (_name, header, status) => {
    const client = await newClient();
    const before = etagOf(await client.post('doc', { v: 1 }));
    const raw = createRawClient(api.url);
    try {
      const answer = await raw.send({
        method: header === 'If-Match' ? 'PUT' : 'POST',
        target: documentPath(client.tenant, COLLECTION, 'doc'),
        headers: {
          Authorization: `Bearer ${client.key}`,
          'Content-Type': 'application/json',
          [header]: [before, '"not-the-current-tag"'],
        },
        body: JSON.stringify({ v: 2 }),
      });
      expect(answer.status, answer.text).toBe(status);
    } finally {
      raw.close();
    }
    expect((await current(client, 'doc')).json).toEqual(status === 200 ? { v: 2 } : { v: 1 });
  });
});

describe('races on one tag', () => {
  it.each([
    ['PUT', (writer: string) => ({ writer })],
    ['POST', (writer: string) => ({ replacedBy: writer })],
  ] as const)(
    'two concurrent %s requests with the same current tag: exactly one 200 and one 412, and the winner’s document is stored',
    async (method, body) => {
      const client = await newClient();
      // A few rounds: two requests sent together do not always meet in the store, several pairs do.
      for (let round = 0; round < 5; round++) {
        const docId = `raced-${round}`;
        const tag = etagOf(await client.post(docId, { base: true }));
        const answers = await Promise.all(
          ['a', 'b'].map((writer) => client.write(method, docId, body(writer), { 'If-Match': tag })),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
        const winner = answers.find((a) => a.status === 200)!;
        expectPreconditionFailed(answers.find((a) => a.status === 412)!);
        // The winner's answer is the stored document: the loser's write left no trace in it.
        expect(await current(client, docId)).toEqual({ json: winner.json, etag: etagOf(winner) });
      }
    },
  );
});

describe('read, edit, write', () => {
  it('a client whose copy went stale gets 412 and loses nothing of the other client’s change; re-read and retried, it succeeds', async () => {
    const tenant = uniqueTenant('cond');
    const [alice, bob] = [
      await newClient(['provisioning:*'], tenant),
      await newClient(['provisioning:users.*'], tenant),
    ];
    await alice.post('profile', { name: 'Ada', tz: 'UTC' });
    const aliceRead = await alice.get('profile');
    const aliceTag = etagOf(aliceRead);

    const bobWrite = await bob.put('profile', { tz: 'Europe/Berlin' });
    expect(bobWrite.status).toBe(200);
    const bobTag = etagOf(bobWrite);

    expectPreconditionFailed(await alice.put('profile', { name: 'Ada Lovelace' }, { 'If-Match': aliceTag }));
    const reread = await current(alice, 'profile');
    expect(reread).toEqual({ json: { name: 'Ada', tz: 'Europe/Berlin' }, etag: bobTag });

    const retried = await alice.put('profile', { name: 'Ada Lovelace' }, { 'If-Match': reread.etag });
    expect(retried.status).toBe(200);
    expect(retried.json).toEqual({ name: 'Ada Lovelace', tz: 'Europe/Berlin' });
    expect(await current(bob, 'profile')).toEqual({ json: retried.json, etag: etagOf(retried) });
  });
});

describe('authorization comes before conditions', () => {
  it('a key without the tenant is 403 whether or not its condition would hold: neither 304 nor 412 tells it anything', async () => {
    const owner = await newClient();
    const tag = etagOf(await owner.post('secret', { v: 1 }));
    const { key: foreign } = await api.createKey([uniqueTenant('other')], ['provisioning:*']);
    const path = documentPath(owner.tenant, COLLECTION, 'secret');
    for (const header of [tag, '"never-issued"', '*']) {
      expect((await api.call('GET', path, foreign, { headers: { 'If-None-Match': header } })).status, header).toBe(403);
      expect(
        (await api.call('PUT', path, foreign, { body: { v: 2 }, headers: { 'If-Match': header } })).status,
        header,
      ).toBe(403);
    }
    expect(await current(owner, 'secret')).toEqual({ json: { v: 1 }, etag: tag });
  });

  it('a read-only key is 403 on a conditional write, not 412', async () => {
    const tenant = uniqueTenant('cond');
    const [writer, reader] = [
      await newClient(['provisioning:*'], tenant),
      await newClient(['provisioning:users.read'], tenant),
    ];
    const tag = etagOf(await writer.post('doc', { v: 1 }));
    expect((await reader.post('doc', { v: 2 }, { 'If-Match': '"never-issued"' })).status).toBe(403);
    expect((await reader.put('doc', { v: 2 }, { 'If-Match': tag })).status).toBe(403);
    // Reading with a condition is what a read-only key may do.
    expect((await reader.get('doc', { 'If-None-Match': tag })).status).toBe(304);
  });
});

describe('with Idempotency-Key', () => {
  it('a keyed POST with If-Match that succeeded, retried with the same key and headers, is replayed, not refused', async () => {
    const client = await newClient();
    const original = etagOf(await client.post('doc', { v: 1 }));
    const headers = { 'If-Match': original, 'Idempotency-Key': randomUUID() };
    const first = await client.post('doc', { v: 2 }, headers);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).not.toBe('true');
    const written = etagOf(first);

    // The tag has moved on, so the condition no longer holds: only the replay can answer 200.
    const retry = await client.post('doc', { v: 2 }, headers);
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    // The retry wrote nothing: the tag is still the first answer's.
    expect(await current(client, 'doc')).toEqual({ json: { v: 2 }, etag: written });

    // A new request (a new key) with the same stale tag is refused as any other.
    expectPreconditionFailed(
      await client.post('doc', { v: 3 }, { 'If-Match': original, 'Idempotency-Key': randomUUID() }),
    );
    expect(await current(client, 'doc')).toEqual({ json: { v: 2 }, etag: written });
  });

  it('a keyed create-only POST (If-None-Match: *) retried with the same key is replayed as 201, not refused', async () => {
    const client = await newClient();
    const headers = { 'If-None-Match': '*', 'Idempotency-Key': randomUUID() };
    const first = await client.post('doc', { v: 1 }, headers);
    expect(first.status).toBe(201);
    const written = etagOf(first);
    const retry = await client.post('doc', { v: 1 }, headers);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await current(client, 'doc')).toEqual({ json: { v: 1 }, etag: written });
  });

  it('the same key with other preconditions is another request: 422, nothing written, whether the condition changed, appeared or went', async () => {
    const client = await newClient();
    const original = etagOf(await client.post('doc', { v: 1 }));
    const key = randomUUID();
    const first = await client.put('doc', { v: 2 }, { 'If-Match': original, 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    const written = etagOf(first);
    const others: Record<string, string>[] = [
      { 'If-Match': written },
      { 'If-Match': '*' },
      { 'If-None-Match': '*' },
      {},
    ];
    for (const headers of others) {
      const reused = await client.put('doc', { v: 2 }, { ...headers, 'Idempotency-Key': key });
      expect(reused.status, JSON.stringify(headers)).toBe(422);
    }
    // Spelled otherwise, the same condition is the same request: replayed.
    const respelled = await client.put('doc', { v: 2 }, { 'If-Match': ` ${original} `, 'Idempotency-Key': key });
    expect(respelled.headers.get('idempotent-replayed')).toBe('true');
    expect(await current(client, 'doc')).toEqual({ json: { v: 2 }, etag: written });
  });
});
