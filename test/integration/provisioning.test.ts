/** Endpoints 3-6 and the provisioning rules through the local gateway and DynamoDB Local. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_MAX_BYTES } from '#shared/domain/documents/document-size';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('prov');
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.createKey([tenant], ['provisioning:*']));
});
afterAll(() => api.close());

const base = (t = tenant) => `/api/v1/provisioning/tenants/${t}`;
const current = (collection: string, docId: string, t = tenant) => `${base(t)}/${collection}/${docId}/versions/current`;
const post = (collection: string, docId: string, body: unknown, k = key) =>
  api.call('POST', current(collection, docId), k, { body });
const put = (collection: string, docId: string, body: unknown, k = key) =>
  api.call('PUT', current(collection, docId), k, { body });
const get = (collection: string, docId: string, k = key) => api.call('GET', current(collection, docId), k);
const list = (collection: string, query = '', k = key) => api.call('GET', `${base()}/${collection}${query}`, k);

describe('create, read, replace', () => {
  it('POST creates (201) and returns the stored document; GET returns it', async () => {
    const document = { name: 'Ada', roles: ['agent'], settings: { theme: 'dark' } };
    const created = await post('users', 'u-create', document);
    expect(created.status).toBe(201);
    expect(created.json).toEqual(document);
    const read = await get('users', 'u-create');
    expect(read.status).toBe(200);
    expect(read.json).toEqual(document);
    expect(read.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('POST on an existing document replaces it (200): no member of the old one survives', async () => {
    await post('users', 'u-replace', { name: 'Old', keep: { a: 1 }, drop: true });
    const replaced = await post('users', 'u-replace', { name: 'New', keep: { b: 2 } });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toEqual({ name: 'New', keep: { b: 2 } });
    expect((await get('users', 'u-replace')).json).toEqual({ name: 'New', keep: { b: 2 } });
  });

  it('GET of an absent document is 404 NotFound', async () => {
    const response = await get('users', 'nobody');
    expect(response.status).toBe(404);
    expect((response.json as { code: string }).code).toBe('NotFound');
  });

  it('round-trips an awkward document exactly', async () => {
    const text =
      '{"":"empty key","emoji":"😀👩‍👩‍👧","rtl":"שלום","combining":"e\\u0301","nul":"a\\u0000b","escapes":"\\"\\\\\\/\\b\\f\\n\\r\\t",' +
      '"numbers":[0,-1,1.5,-2.25e-7,6.02e-23,9007199254740991,-9007199254740991,123456789.123],"bools":[true,false,null],' +
      '"nested":[[[]],[{}],{"a":[{"b":[1,[2,[3]]]}]}],"emptyObject":{},"emptyArray":[],' +
      '"__proto__":{"x":1},"constructor":"c","toString":1,"dotted.key":1,"ключ":"значение"}';
    const created = await post('users', 'awkward', text);
    expect(created.status).toBe(201);
    const read = await get('users', 'awkward');
    expect(read.text).toBe(JSON.stringify(JSON.parse(text)));
    const listed = (await list('users', `?limit=1000`)).json as Array<{ id: string; data: unknown }>;
    expect(JSON.stringify(listed.find((entry) => entry.id === 'awkward')!.data)).toBe(read.text);
  });
});

describe('merge (PUT, RFC 7396)', () => {
  it('merges nested objects, deletes with null, replaces arrays, returns the result', async () => {
    await post('users', 'u-merge', {
      name: 'Ada',
      roles: ['agent', 'admin'],
      profile: { lang: 'en', tz: 'UTC', phone: '1' },
      old: 1,
    });
    const merged = await put('users', 'u-merge', {
      roles: ['agent'],
      profile: { tz: 'Europe/Berlin', phone: null, pager: { on: true } },
      old: null,
      added: 'x',
    });
    expect(merged.status).toBe(200);
    const expected = {
      name: 'Ada',
      roles: ['agent'],
      profile: { lang: 'en', tz: 'Europe/Berlin', pager: { on: true } },
      added: 'x',
    };
    expect(merged.json).toEqual(expected);
    expect((await get('users', 'u-merge')).json).toEqual(expected);
  });

  it('an empty patch changes nothing', async () => {
    await post('users', 'u-empty', { a: 1 });
    expect((await put('users', 'u-empty', {})).json).toEqual({ a: 1 });
  });

  it('on an absent document is 404 and creates nothing', async () => {
    const response = await put('users', 'never-created', { a: 1 });
    expect(response.status).toBe(404);
    expect((await get('users', 'never-created')).status).toBe(404);
    expect(((await list('users')).json as Array<{ id: string }>).map((e) => e.id)).not.toContain('never-created');
  });
});

describe('bad bodies', () => {
  it.each([
    ['an array', '[{"a":1}]', /must be a JSON object/],
    ['a string', '"text"', /must be a JSON object/],
    ['a number', '42', /must be a JSON object/],
    ['null', 'null', /must be a JSON object/],
    ['true', 'true', /must be a JSON object/],
    ['invalid JSON', '{"a":', /not valid JSON/],
    ['an empty body', '', /body is required/],
  ])('%s is 400 for POST and PUT, and nothing changes', async (_name, body, message) => {
    await post('users', 'u-bad', { stays: true });
    for (const method of ['POST', 'PUT']) {
      const response = await api.call(method, current('users', 'u-bad'), key, {
        body,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect((response.json as { message: string }).message).toMatch(message);
    }
    expect((await get('users', 'u-bad')).json).toEqual({ stays: true });
  });
});

describe('values JSON cannot keep', () => {
  it.each([
    ['a number that overflows', '{"a":{"b":1e400}}', /'a.b' holds a number too large/],
    ['an integer beyond 2^53', '{"list":[1,12345678901234567890]}', /'list\[1\]' holds an integer beyond/],
    ['a lone surrogate in a value', '{"name":"Gr\\ud800ace"}', /'name' holds text that is not valid Unicode/],
    ['a lone surrogate in a member name', '{"ok":{"\\udc00":1}}', /'ok.\udc00' holds text that is not valid Unicode/],
  ])('%s is 400 naming the member, for POST and PUT, and nothing changes', async (_name, body, message) => {
    await post('users', 'numbers', { kept: 1 });
    for (const method of ['POST', 'PUT']) {
      const response = await api.call(method, current('users', 'numbers'), key, { body });
      expect(response.status).toBe(400);
      expect((response.json as { message: string }).message).toMatch(message);
    }
    expect((await get('users', 'numbers')).json).toEqual({ kept: 1 });
  });

  it('accepts nesting of 100 levels and refuses 101, and a very deep body is 400, never 5xx', async () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    expect((await post('users', 'deep', nested(100))).status).toBe(201);
    expect((await put('users', 'deep', nested(100))).status).toBe(200);
    const refused = await post('users', 'deep', nested(101));
    expect(refused.status).toBe(400);
    expect((refused.json as { message: string }).message).toMatch(/deeper than 100 levels/);
    expect((await post('users', 'deeper', nested(100_000))).status).toBe(400);
    expect((await put('users', 'deep', `[${'['.repeat(50_000)}${']'.repeat(50_000)}]`)).status).toBe(400);
  });
});

describe('size limits', () => {
  /** A document whose compact JSON is exactly `bytes` bytes. */
  function documentOfBytes(bytes: number): Record<string, string> {
    const overhead = Buffer.byteLength('{"v":""}');
    const document = { v: 'é'.repeat(Math.floor((bytes - overhead) / 2)) + 'a'.repeat((bytes - overhead) % 2) };
    expect(Buffer.byteLength(JSON.stringify(document))).toBe(bytes);
    return document;
  }

  it('accepts a document of exactly 350 KB of compact JSON and refuses one byte more (413)', async () => {
    expect((await post('big', 'exact', documentOfBytes(DOCUMENT_MAX_BYTES))).status).toBe(201);
    const over = await post('big', 'over', documentOfBytes(DOCUMENT_MAX_BYTES + 1));
    expect(over.status).toBe(413);
    expect(over.json).toEqual({ code: 'PayloadTooLarge', message: expect.stringMatching(/358400 bytes/) });
    expect((await get('big', 'over')).status).toBe(404);
  });

  it('counts compact JSON: white space in the request does not count', async () => {
    const padded = JSON.stringify(documentOfBytes(DOCUMENT_MAX_BYTES - 100), null, 40).replace(
      '{',
      `{${' '.repeat(5000)}`,
    );
    expect((await post('big', 'padded', padded)).status).toBe(201);
  });

  it('refuses a merge whose result would pass the bound, leaving the document as it was', async () => {
    await post('big', 'grows', documentOfBytes(DOCUMENT_MAX_BYTES - 10));
    const response = await put('big', 'grows', { more: 'x'.repeat(100) });
    expect(response.status).toBe(413);
    expect(Buffer.byteLength((await get('big', 'grows')).text)).toBe(DOCUMENT_MAX_BYTES - 10);
  });

  it('refuses a request body over 1 MiB before parsing it (413)', async () => {
    const response = await post('big', 'huge', `{"v":"${'x'.repeat(1024 * 1024)}"}`);
    expect(response.status).toBe(413);
  });
});

describe('list', () => {
  const ids = ['b-2', 'a-1', 'c-3', 'a-10', 'B-0', 'a-2'];

  it('returns [{id, data}] ordered by id; an empty or unknown collection is []', async () => {
    const collection = 'ordered';
    for (const id of ids) await post(collection, id, { id, n: ids.indexOf(id) });
    const response = await list(collection);
    expect(response.status).toBe(200);
    const entries = response.json as Array<{ id: string; data: { n: number } }>;
    expect(entries.map((e) => e.id)).toEqual([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(entries[0]).toEqual({ id: 'B-0', data: { id: 'B-0', n: 4 } });
    expect(response.headers.get('link')).toBeNull();
    expect((await list('nothing-here')).json).toEqual([]);
  });

  it('pages with limit and a Link rel="next" until the last page, each document once', async () => {
    const collection = 'paged';
    const all = Array.from({ length: 23 }, (_, i) => `doc-${String(i).padStart(2, '0')}`);
    await Promise.all(all.map((id) => api.addDocument(tenant, collection, id, { id })));
    const seen: string[] = [];
    let path: string | undefined = `${base()}/${collection}?limit=5`;
    let pages = 0;
    while (path) {
      const response = await api.call('GET', path, key);
      expect(response.status).toBe(200);
      const entries = response.json as Array<{ id: string }>;
      seen.push(...entries.map((e) => e.id));
      pages++;
      const link = response.headers.get('link');
      if (link) {
        const match = /^<([^>]+)>; rel="next"$/.exec(link);
        expect(match).not.toBeNull();
        const next = new URL(match![1]!);
        expect(next.origin).toBe(api.url);
        expect(next.searchParams.get('limit')).toBe('5');
        path = `${next.pathname}${next.search}`;
        expect(entries).toHaveLength(5);
      } else {
        path = undefined;
      }
    }
    expect(pages).toBe(5);
    expect(seen).toEqual(all);
  });

  it('stops a page before its body, as Lambda sends it, passes 5 MB; the next page goes on', async () => {
    const collection = 'escaped';
    // 170 000 quotes: 340 KB as stored JSON text, twice that once escaped in the Lambda envelope.
    const quotes = '"'.repeat(170_000);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.addDocument(tenant, collection, `q-${String(i).padStart(2, '0')}`, { q: quotes }),
      ),
    );
    const first = await list(collection);
    const firstIds = (first.json as Array<{ id: string }>).map((e) => e.id);
    expect(firstIds.length).toBeLessThan(12);
    expect(Buffer.byteLength(JSON.stringify(first.text))).toBeLessThan(6 * 1024 * 1024);
    const next = new URL(/^<([^>]+)>/.exec(first.headers.get('link')!)![1]!);
    const rest = ((await api.call('GET', `${next.pathname}${next.search}`, key)).json as Array<{ id: string }>).map(
      (e) => e.id,
    );
    expect([...firstIds, ...rest]).toEqual(Array.from({ length: 12 }, (_, i) => `q-${String(i).padStart(2, '0')}`));
  });

  it('defaults to 1000 per page', async () => {
    const collection = 'thousand';
    const all = Array.from({ length: 1001 }, (_, i) => `d${String(i).padStart(4, '0')}`);
    for (let i = 0; i < all.length; i += 50)
      await Promise.all(all.slice(i, i + 50).map((id) => api.addDocument(tenant, collection, id, {})));
    const first = await list(collection);
    expect((first.json as unknown[]).length).toBe(1000);
    expect(first.headers.get('link')).toMatch(/rel="next"/);
    expect(first.headers.get('link')).not.toMatch(/limit=/);
    const next = new URL(/^<([^>]+)>/.exec(first.headers.get('link')!)![1]!);
    const second = await api.call('GET', `${next.pathname}${next.search}`, key);
    expect(second.json).toEqual([{ id: 'd1000', data: {} }]);
    expect(second.headers.get('link')).toBeNull();
  });

  it.each([
    '?limit=0',
    '?limit=1001',
    '?limit=abc',
    '?limit=1.5',
    '?limit=-1',
    '?limit=',
    '?cursor=garbage!',
    '?cursor=e30',
    '?page=2',
    '?limit=1&limit=2',
  ])('%s is 400', async (query) => {
    const response = await list('paged', query);
    expect(response.status).toBe(400);
  });
});

describe('identifiers', () => {
  it.each([
    ['a collection with a separator', `${base()}/us%2Fers`],
    ['a collection starting with a dot', `${base()}/.hidden`],
    ['a collection of 65 characters', `${base()}/${'c'.repeat(65)}`],
    ['a collection with a colon', `${base()}/a:b`],
  ])('%s is 400', async (_name, path) => {
    const response = await api.call('GET', path, key);
    expect(response.status).toBe(400);
    expect((response.json as { message: string }).message).toMatch(/'collection'/);
  });

  it('a collection of 64 characters is fine', async () => {
    expect((await list('c'.repeat(64))).status).toBe(200);
  });

  it('a docId of 512 characters is accepted, 513 refused, a separator refused', async () => {
    expect((await post('users', 'd'.repeat(512), { a: 1 })).status).toBe(201);
    expect((await get('users', 'd'.repeat(512))).json).toEqual({ a: 1 });
    const tooLong = await post('users', 'd'.repeat(513), { a: 1 });
    expect(tooLong.status).toBe(400);
    expect((tooLong.json as { message: string }).message).toMatch(/'docId' must be at most 512/);
    expect((await post('users', 'a%2Fb', { a: 1 })).status).toBe(400);
    expect((await get('users', 'a%5Cb')).status).toBe(400);
  });

  it('a docId within 512 characters but over the store key bound (1024 bytes) is 400 on every document route', async () => {
    const wide = '😀'.repeat(300);
    for (const response of [
      await post('users', wide, { a: 1 }),
      await get('users', wide),
      await put('users', wide, { a: 1 }),
    ]) {
      expect(response.status).toBe(400);
      expect((response.json as { message: string }).message).toMatch(/too long to store: at most 1024 bytes/);
    }
    expect((await post('users', '😀'.repeat(256), { a: 1 })).status).toBe(201);
  });

  it('a cursor naming an id no document can have is 400, not a silent restart', async () => {
    const cursor = Buffer.from(JSON.stringify({ v: 1, after: '😀'.repeat(300) })).toString('base64url');
    expect((await list('users', `?cursor=${cursor}`)).status).toBe(400);
  });
});

describe('tenant isolation', () => {
  it("another tenant's key is 403 on this tenant's paths, and this key is 403 on theirs", async () => {
    const other = uniqueTenant('other');
    const theirs = await api.createKey([other], ['provisioning:*']);
    await post('users', 'shared-id', { owner: tenant });
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', { x: 1 }],
      ['PUT', { x: 1 }],
    ] as const) {
      expect((await api.call(method, current('users', 'shared-id'), theirs.key, { body })).status).toBe(403);
      expect((await api.call(method, current('users', 'shared-id', other), key, { body })).status).toBe(403);
    }
    expect((await api.call('GET', `${base()}/users`, theirs.key)).status).toBe(403);
    expect((await get('users', 'shared-id')).json).toEqual({ owner: tenant });
  });

  it('the same collection and id in two tenants are two documents', async () => {
    const other = uniqueTenant('twin');
    const theirs = await api.createKey([other], ['provisioning:*']);
    await post('bots', 'twin', { owner: 'mine' });
    expect((await api.call('GET', current('bots', 'twin', other), theirs.key)).status).toBe(404);
    await api.call('POST', current('bots', 'twin', other), theirs.key, { body: { owner: 'theirs' } });
    await api.call('PUT', current('bots', 'twin', other), theirs.key, { body: { extra: true } });
    expect((await get('bots', 'twin')).json).toEqual({ owner: 'mine' });
    const theirList = (await api.call('GET', `${base(other)}/bots`, theirs.key)).json;
    expect(theirList).toEqual([{ id: 'twin', data: { owner: 'theirs', extra: true } }]);
  });
});

describe('scopes (the collection as resource)', () => {
  it('provisioning:users.write writes users only, and does not read them', async () => {
    const { key: writer } = await api.createKey([tenant], ['provisioning:users.write']);
    expect((await post('users', 'scoped', { a: 1 }, writer)).status).toBe(201);
    expect((await put('users', 'scoped', { b: 2 }, writer)).status).toBe(200);
    expect((await post('bots', 'scoped', { a: 1 }, writer)).status).toBe(403);
    expect((await get('users', 'scoped', writer)).status).toBe(403);
    expect((await list('users', '', writer)).status).toBe(403);
  });

  it('provisioning:read reads every collection and writes none', async () => {
    const { key: reader } = await api.createKey([tenant], ['provisioning:read']);
    await post('bots', 'readable', { a: 1 });
    expect((await get('users', 'scoped', reader)).status).toBe(200);
    expect((await get('bots', 'readable', reader)).status).toBe(200);
    expect((await list('anything', '', reader)).status).toBe(200);
    expect((await post('bots', 'readable', { a: 2 }, reader)).status).toBe(403);
    expect((await put('bots', 'readable', { a: 2 }, reader)).status).toBe(403);
  });

  it('provisioning:bots.write does not grant reading bots', async () => {
    const { key: botWriter } = await api.createKey([tenant], ['provisioning:bots.write']);
    expect((await post('bots', 'bw', { a: 1 }, botWriter)).status).toBe(201);
    expect((await get('bots', 'bw', botWriter)).status).toBe(403);
  });

  it.each([
    ['provisioning:users.*', 200, 201, 403],
    ['provisioning:users.read', 200, 403, 403],
    ['provisioning:write', 403, 201, 201],
    ['provisioning:*', 200, 201, 201],
    ['cxm:*', 403, 403, 403],
  ] as const)('%s: read users %i, write users %i, write bots %i', async (scope, readUsers, writeUsers, writeBots) => {
    const { key: k } = await api.createKey([tenant], [scope]);
    await post('users', 'form', { a: 1 });
    expect((await get('users', 'form', k)).status).toBe(readUsers);
    const written = await post('users', `form-${scope.replace(/[^a-z]/g, '')}`, { a: 1 }, k);
    expect(written.status).toBe(writeUsers);
    expect((await post('bots', `form-${scope.replace(/[^a-z]/g, '')}`, { a: 1 }, k)).status).toBe(writeBots);
  });
});

describe('concurrency', () => {
  it('a replace racing merges leaves one order of them, never a mix', async () => {
    for (let round = 0; round < 5; round++) {
      const id = `race-${round}`;
      await post('users', id, { origin: 'first', a: 1 });
      const [merged, replaced] = await Promise.all([
        put('users', id, { merged: true }),
        post('users', id, { origin: 'second' }),
      ]);
      expect(merged.status).toBe(200);
      expect(replaced.status).toBe(200);
      const final = (await get('users', id)).json;
      // Merge then replace, or replace then merge: never `a` without `origin: first`.
      expect([{ origin: 'second' }, { origin: 'second', merged: true }]).toContainEqual(final);
    }
  });
});
