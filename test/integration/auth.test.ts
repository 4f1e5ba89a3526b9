/** Authentication and authorization of the note endpoint, through the local gateway (the contract's Authentication; scope grants, error bodies, API keys). */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_DENIED_MESSAGE, UNAUTHENTICATED_MESSAGE } from '#shared/api/api-error';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('auth');
let key: string;

beforeAll(async () => {
  api = await startTestApi({ authCacheTtlSeconds: 0 });
  await api.addConversation(tenant, { id: 'c1' });
  ({ key } = await api.createKey([tenant], ['cxm:conversations.write']));
});
afterAll(() => api.close());

async function withAuthorization(value: string | undefined) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (value !== undefined) headers.Authorization = value;
  const response = await api.fetch(api.notePath(tenant, 'c1'), {
    method: 'POST',
    headers,
    body: JSON.stringify({ body: 'x' }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('401 Unauthenticated', () => {
  it('a missing header: the message names the Authorization header and Bearer', async () => {
    const { status, json } = await withAuthorization(undefined);
    expect(status).toBe(401);
    expect(json).toEqual({ code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE });
    expect(json.message).toMatch(/Authorization header/);
    expect(json.message).toMatch(/Bearer/);
  });

  it.each([
    ['a wrong scheme', () => `Basic ${key}`],
    ['an empty token', () => 'Bearer '],
    ['a bare scheme', () => 'Bearer'],
    ['a token without scheme', () => key],
    ['a malformed token', () => 'Bearer not-a-key'],
    ['an unknown key of valid form', () => `Bearer cxm_aaaaaaaaaaaa_${'A'.repeat(40)}`],
    ['a known key id with a wrong secret', () => `Bearer ${key.slice(0, 17)}${'B'.repeat(40)}`],
  ])('%s', async (_name, header) => {
    const { status, json } = await withAuthorization(header());
    expect(status).toBe(401);
    expect(json).toEqual({ code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE });
  });

  it('a revoked key', async () => {
    const revoked = await api.createKey([tenant], ['cxm:*']);
    expect((await withAuthorization(`Bearer ${revoked.key}`)).status).toBe(201);
    await api.keys.revoke(revoked.keyId, new Date());
    const { status, json } = await withAuthorization(`Bearer ${revoked.key}`);
    expect(status).toBe(401);
    expect(json.code).toBe('Unauthenticated');
  });

  it('an expired key, while one expiring later works', async () => {
    const expired = await api.createKey([tenant], ['cxm:*'], { expiresAt: new Date(Date.now() - 1000).toISOString() });
    const later = await api.createKey([tenant], ['cxm:*'], {
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await withAuthorization(`Bearer ${expired.key}`)).status).toBe(401);
    expect((await withAuthorization(`Bearer ${later.key}`)).status).toBe(201);
  });
});

describe('the Bearer scheme', () => {
  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('is matched case-insensitively: %s', async (scheme) => {
    expect((await withAuthorization(`${scheme} ${key}`)).status).toBe(201);
  });
});

describe('403 PermissionDenied', () => {
  it("another tenant's key", async () => {
    const other = await api.createKey([uniqueTenant('other')], ['cxm:*']);
    const { status, json } = await withAuthorization(`Bearer ${other.key}`);
    expect(status).toBe(403);
    expect(json).toEqual({ code: 'PermissionDenied', message: PERMISSION_DENIED_MESSAGE });
  });

  it('a path tenant that differs only in case or is malformed', async () => {
    for (const pathTenant of [tenant.toUpperCase(), `${tenant}%23x`, `${tenant}x`]) {
      const response = await api.postNote(pathTenant, 'c1', key);
      expect(response.status).toBe(403);
      expect(response.json.code).toBe('PermissionDenied');
    }
  });

  it('a key lacking the scope', async () => {
    const readOnly = await api.createKey([tenant], ['cxm:conversations.read', 'cxm:read', 'mcp:*']);
    const { status, json } = await withAuthorization(`Bearer ${readOnly.key}`);
    expect(status).toBe(403);
    expect(json).toEqual({ code: 'PermissionDenied', message: PERMISSION_DENIED_MESSAGE });
  });

  it('is answered before the body is validated (the order of checks)', async () => {
    const readOnly = await api.createKey([tenant], ['cxm:conversations.read']);
    const response = await api.postNote(tenant, 'c1', readOnly.key, '{not json');
    expect(response.status).toBe(403);
  });
});

describe('scopes granting the note endpoint', () => {
  it.each(['cxm:conversations.write', 'cxm:conversations.*', 'cxm:write', 'cxm:*'])('%s grants it', async (scope) => {
    const granted = await api.createKey([tenant], [scope]);
    expect((await withAuthorization(`Bearer ${granted.key}`)).status).toBe(201);
  });

  it('cxm:conversations.read does not', async () => {
    const readOnly = await api.createKey([tenant], ['cxm:conversations.read']);
    expect((await withAuthorization(`Bearer ${readOnly.key}`)).status).toBe(403);
  });

  it('a key holding several tenants acts for each of them', async () => {
    const second = uniqueTenant('second');
    await api.addConversation(second, { id: 'c1' });
    const both = await api.createKey([tenant, second], ['cxm:write']);
    expect((await api.postNote(tenant, 'c1', both.key)).status).toBe(201);
    expect((await api.postNote(second, 'c1', both.key)).status).toBe(201);
  });
});

/** A POST with the given raw header list (fetch would merge repeated names into one). */
function rawPost(url: string, headers: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = '{"body":"x"}';
    // With a raw header list Node adds neither Host nor framing headers of its own.
    const framing = ['Host', new URL(url).host, 'Content-Length', String(body.length)];
    const req = request(url, { method: 'POST', headers: [...framing, ...headers] }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the authorizer cache', () => {
  it('one cached decision serves every route and resource of the stage (the Allow covers it)', async () => {
    const cached = await startTestApi({ authCacheTtlSeconds: 60 });
    try {
      await api.addConversation(tenant, { id: 'c2' });
      const k = await api.createKey([tenant], ['cxm:*']);
      expect((await cached.postNote(tenant, 'c1', k.key)).status).toBe(201);
      expect((await cached.postNote(tenant, 'c2', k.key)).status).toBe(201);
    } finally {
      await cached.close();
    }
  });

  it('refuses two Authorization headers, so a cached decision cannot be bound to another value', async () => {
    const cached = await startTestApi({ authCacheTtlSeconds: 60 });
    try {
      const url = cached.notePath(tenant, 'c1');
      const json = ['Content-Type', 'application/json'];
      expect(await rawPost(url, [...json, 'Authorization', 'letmein', 'Authorization', `Bearer ${key}`])).toBe(401);
      expect(await rawPost(url, [...json, 'Authorization', `Bearer ${key}`, 'Authorization', 'letmein'])).toBe(401);
      expect(await rawPost(url, [...json, 'Authorization', 'letmein'])).toBe(401);
      expect(await rawPost(url, [...json, 'Authorization', `Bearer ${key}`])).toBe(201);
    } finally {
      await cached.close();
    }
  });

  it('with a TTL a revoked key keeps working until the entry expires; with TTL 0 it stops at once', async () => {
    const cached = await startTestApi({ authCacheTtlSeconds: 60 });
    try {
      const k = await api.createKey([tenant], ['cxm:*']);
      expect((await cached.postNote(tenant, 'c1', k.key)).status).toBe(201);
      expect((await api.postNote(tenant, 'c1', k.key)).status).toBe(201);
      await api.keys.revoke(k.keyId, new Date());
      expect((await cached.postNote(tenant, 'c1', k.key)).status).toBe(201);
      expect((await api.postNote(tenant, 'c1', k.key)).status).toBe(401);
    } finally {
      await cached.close();
    }
  });

  it('caches one answer per key for every path: a path the key never called is served from it, without the authorizer', async () => {
    const cached = await startTestApi({ authCacheTtlSeconds: 60 });
    try {
      await api.addConversation(tenant, { id: 'c3' });
      const k = await api.createKey([tenant], ['cxm:*']);
      expect((await cached.postNote(tenant, 'c1', k.key)).status).toBe(201);
      // Revoked in the store: only an authorizer call could now refuse it. Cached per key and path,
      // the new conversation's path would have made one (401).
      await api.keys.revoke(k.keyId, new Date());
      expect((await cached.postNote(tenant, 'c3', k.key)).status).toBe(201);
      expect((await api.postNote(tenant, 'c3', k.key)).status).toBe(401);
    } finally {
      await cached.close();
    }
  });
});
