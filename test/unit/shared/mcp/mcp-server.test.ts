/**
 * The bots server and the MCP bridge without HTTP, in both protocol eras: the tenant is the one
 * the server is made for, the key never reaches MCP code, a store fault is not turned into a tool
 * result, each request is served by its own server, and a 2026-07-28 request gets what that
 * revision requires of a server (discover, header checks, result types, cache hints, its errors).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '#shared/http/api-types';
import { createBotsServer } from '#shared/mcp/bots-server';
import { serveMcpRequest, toWebRequest } from '#shared/mcp/serve-mcp-request';
import type { DocumentsStore } from '#shared/store/documents-store';

const KEY = `cxm_abcdefghijkl_${'S'.repeat(40)}`;

function storeFor(byTenant: Record<string, Array<{ id: string; json: string }>>, seen: string[] = []): DocumentsStore {
  return {
    list: async (tenantId, collection) => {
      seen.push(`${tenantId}/${collection}`);
      return { entries: byTenant[tenantId] ?? [], more: false };
    },
    read: async (tenantId, collection, docId) => {
      seen.push(`${tenantId}/${collection}/${docId}`);
      const entry = byTenant[tenantId]?.find((candidate) => candidate.id === docId);
      return entry && { json: entry.json, etag: 'e1', version: 1 };
    },
    replace: async () => ({ kind: 'written', created: true, etag: 'unused', version: 1 }),
    update: async () => ({ kind: 'absent' }),
    restore: async () => ({ kind: 'not-found', read: { kind: 'not-yet' } }),
    readVersion: async () => ({ kind: 'not-yet' }),
    listVersions: async () => undefined,
  };
}

function request(
  tenantId: string,
  body: unknown,
  method = 'POST',
  extraHeaders: Record<string, string> = {},
): ApiRequest {
  return {
    tenantId,
    caller: { keyId: 'abcdefghijkl', tenants: [tenantId], scopes: ['mcp:bots.read'] },
    path: { tenantId },
    query: {},
    body: undefined,
    requestId: 'r1',
    signal: new AbortController().signal,
    http: {
      method,
      headers: {
        Authorization: `Bearer ${KEY}`,
        Cookie: 'session=1',
        'Content-Type': 'application/json',
        Accept: 'application/json',
        ...extraHeaders,
      },
      multiValueHeaders: {},
      rawBody: Buffer.from(JSON.stringify(body)),
      selfUrl: `http://localhost/api/v1/mcp/tenants/${tenantId}/bots`,
    },
  };
}

const callListBots = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'list_bots', arguments: { limit: 5 } },
});

const MODERN = '2026-07-28';
const MODERN_META = {
  [PROTOCOL_VERSION_META_KEY]: MODERN,
  [CLIENT_CAPABILITIES_META_KEY]: {},
  [CLIENT_INFO_META_KEY]: { name: 'unit', version: '1.0.0' },
};

/** A 2026-07-28 request: its version and capabilities in `_meta`, its method (and tool) in headers too. */
function modern(
  tenantId: string,
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): ApiRequest {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'Mcp-Name': params.name } : {};
  return request(tenantId, { jsonrpc: '2.0', id, method, params: { ...params, _meta: MODERN_META } }, 'POST', {
    'MCP-Protocol-Version': MODERN,
    'Mcp-Method': method,
    ...name,
    ...headers,
  });
}

const botsOf = (store: DocumentsStore, tenantId: string) => (onFault: (error: unknown) => void) =>
  createBotsServer(store, tenantId, onFault);

describe('the bots tools', () => {
  it('read the tenant the server is made for, nothing else', async () => {
    const seen: string[] = [];
    const store = storeFor(
      { acme: [{ id: 'b1', json: '{"name":"A"}' }], globex: [{ id: 'g1', json: '{"name":"G"}' }] },
      seen,
    );
    const result = await serveMcpRequest(botsOf(store, 'globex'), request('globex', callListBots(1)));
    expect(JSON.parse(result.bodyText!).result.structuredContent).toEqual({ bots: [{ id: 'g1', name: 'G' }] });
    expect(seen).toEqual(['globex/bots']);
  });

  it('ends a store fault as an error of the request (a logged 500), not as a tool result with its text', async () => {
    const failing: DocumentsStore = {
      ...storeFor({}),
      list: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:8000 arn:aws:dynamodb:secret')),
    };
    await expect(serveMcpRequest(botsOf(failing, 'acme'), request('acme', callListBots(1)))).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });
});

describe('the bridge', () => {
  it('never hands the key or cookies to MCP code', async () => {
    const probe = () => {
      const server = new McpServer({ name: 'probe', version: '1.0.0' });
      server.registerTool('probe', { description: 'what a tool sees' }, async (ctx) => ({
        content: [
          {
            type: 'text',
            text: JSON.stringify({
              authInfo: ctx.http?.authInfo,
              headers: Object.fromEntries(ctx.http?.req?.headers ?? []),
            }),
          },
        ],
      }));
      return server;
    };
    const result = await serveMcpRequest(
      probe,
      request('acme', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'probe', arguments: {} } }),
    );
    const seenByTool = JSON.parse(JSON.parse(result.bodyText!).result.content[0].text) as {
      authInfo: { extra: { tenantId: string } };
      headers: Record<string, string>;
    };
    expect(seenByTool.authInfo.extra.tenantId).toBe('acme');
    expect(result.bodyText).not.toContain(KEY.slice(17));
    expect(Object.keys(seenByTool.headers).map((h) => h.toLowerCase())).not.toContain('authorization');
    expect(Object.keys(seenByTool.headers).map((h) => h.toLowerCase())).not.toContain('cookie');
  });

  it('serves every request with a server of its own', async () => {
    const servers = new Set<McpServer>();
    const create = (onFault: (error: unknown) => void) => {
      const server = createBotsServer(storeFor({}), 'acme', onFault);
      servers.add(server);
      return server;
    };
    await Promise.all([1, 2, 3].map((id) => serveMcpRequest(create, request('acme', callListBots(id)))));
    expect(servers.size).toBe(3);
  });

  it('normalises Accept for JSON-capable clients and keeps other values', () => {
    const accept = (value: string | undefined) =>
      toWebRequest({ ...request('acme', {}).http, headers: value === undefined ? {} : { Accept: value } }).headers.get(
        'accept',
      );
    expect(accept('application/json')).toBe('application/json, text/event-stream');
    expect(accept(undefined)).toBe('application/json, text/event-stream');
    expect(accept('*/*')).toBe('application/json, text/event-stream');
    expect(accept('text/html')).toBe('text/html');
  });
});

const STORE = storeFor({
  acme: [
    { id: 'b1', json: '{"name":"Alpha"}' },
    { id: 'b2', json: '{"name":"Beta","id":"x"}' },
  ],
});
/** The body as the chain sends it: the text the SDK wrote, or the object the bridge answered. */
const body = (result: { bodyText?: string; body?: unknown }) =>
  JSON.parse(result.bodyText ?? JSON.stringify(result.body)) as {
    id: unknown;
    result?: Record<string, unknown> & { structuredContent?: unknown; isError?: boolean; content?: { text: string }[] };
    error?: { code: number; message: string; data?: Record<string, unknown> };
    code?: string;
    message?: string;
  };

describe('2025-era requests (initialize, then one request at a time)', () => {
  it.each(['2025-06-18', '2025-11-25'])(
    'initialize with %s is answered in that version, without a session',
    async (version) => {
      const result = await serveMcpRequest(
        botsOf(STORE, 'acme'),
        request('acme', {
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'unit', version: '1' } },
        }),
      );
      expect(result.status).toBe(200);
      expect(Object.keys(result.headers ?? {}).map((name) => name.toLowerCase())).not.toContain('mcp-session-id');
      expect(body(result)).toMatchObject({
        id: 'init',
        result: { protocolVersion: version, capabilities: { tools: { listChanged: false } } },
      });
    },
  );

  it('get_bot answers the document by id, and a missing id as a tool error naming it', async () => {
    const call = (id: string) =>
      serveMcpRequest(
        botsOf(STORE, 'acme'),
        request('acme', {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_bot', arguments: { id } },
        }),
      );
    expect(body(await call('b2')).result?.structuredContent).toEqual({ bot: { id: 'b2', name: 'Beta' } });
    const missing = body(await call('nope'));
    expect(missing.result).toMatchObject({ isError: true });
    expect(missing.result?.content?.[0]?.text).toContain('"nope"');
  });
});

describe('2026-07-28 requests (stateless: the version and capabilities in every request)', () => {
  it('server/discover names 2026-07-28, the tools capability, and how long to keep the answer', async () => {
    const result = body(await serveMcpRequest(botsOf(STORE, 'acme'), modern('acme', 1, 'server/discover')));
    expect(result.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false } },
      resultType: 'complete',
      ttlMs: 600_000,
      cacheScope: 'private',
    });
  });

  it('tools/list: both tools in a stable order, read-only, with input and output schemas, cacheable privately', async () => {
    const result = body(await serveMcpRequest(botsOf(STORE, 'acme'), modern('acme', 2, 'tools/list')));
    expect(result.result).toMatchObject({ resultType: 'complete', ttlMs: 600_000, cacheScope: 'private' });
    const tools = result.result?.tools as {
      name: string;
      annotations: unknown;
      inputSchema: unknown;
      outputSchema: unknown;
    }[];
    expect(tools.map((tool) => tool.name)).toEqual(['list_bots', 'get_bot']);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      expect(tool.inputSchema).toMatchObject({ type: 'object' });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
    }
  });

  it('tools/call answers structuredContent with resultType, and a missing bot as a tool error naming its id', async () => {
    const listed = body(
      await serveMcpRequest(
        botsOf(STORE, 'acme'),
        modern('acme', 3, 'tools/call', { name: 'list_bots', arguments: {} }),
      ),
    );
    expect(listed.result).toMatchObject({
      resultType: 'complete',
      structuredContent: {
        bots: [
          { id: 'b1', name: 'Alpha' },
          { id: 'b2', name: 'Beta' },
        ],
      },
    });
    const missing = body(
      await serveMcpRequest(
        botsOf(STORE, 'acme'),
        modern('acme', 4, 'tools/call', { name: 'get_bot', arguments: { id: 'b9' } }),
      ),
    );
    expect(missing.result).toMatchObject({ isError: true, resultType: 'complete' });
    expect(missing.result?.content?.[0]?.text).toContain('"b9"');
  });

  it('an Mcp-Method header that disagrees with the body is 400 with -32020, and the request is not served', async () => {
    const seen: string[] = [];
    const result = await serveMcpRequest(
      botsOf(storeFor({}, seen), 'acme'),
      modern('acme', 5, 'tools/call', { name: 'list_bots', arguments: {} }, { 'Mcp-Method': 'tools/list' }),
    );
    expect(result.status).toBe(400);
    expect(body(result)).toMatchObject({ id: 5, error: { code: -32020 }, code: 'BadRequest' });
    expect(body(result).message).toMatch(/Mcp-Method/);
    expect(seen).toEqual([]);
  });

  it('an Mcp-Name header that disagrees with the tool called is 400 with -32020', async () => {
    const result = await serveMcpRequest(
      botsOf(STORE, 'acme'),
      modern('acme', 6, 'tools/call', { name: 'list_bots', arguments: {} }, { 'Mcp-Name': 'get_bot' }),
    );
    expect(result.status).toBe(400);
    expect(body(result)).toMatchObject({ id: 6, error: { code: -32020 }, code: 'BadRequest' });
  });

  it('a version it does not serve is 400 with -32022 and the versions it does', async () => {
    const asked = request(
      'acme',
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/list',
        params: { _meta: { ...MODERN_META, [PROTOCOL_VERSION_META_KEY]: '2099-01-01' } },
      },
      'POST',
      { 'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list' },
    );
    const result = await serveMcpRequest(botsOf(STORE, 'acme'), asked);
    expect(result.status).toBe(400);
    expect(body(result)).toMatchObject({
      id: 7,
      error: { code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } },
      code: 'BadRequest',
    });
  });

  it('subscriptions/listen is 404 -32601 (no notifications here), but only once the SDK would serve it', async () => {
    const served = await serveMcpRequest(botsOf(STORE, 'acme'), modern('acme', 8, 'subscriptions/listen'));
    expect(served.status).toBe(404);
    expect(body(served)).toMatchObject({ id: 8, error: { code: -32601 }, code: 'NotFound' });
    const mismatched = await serveMcpRequest(
      botsOf(STORE, 'acme'),
      modern('acme', 9, 'subscriptions/listen', {}, { 'Mcp-Method': 'tools/list' }),
    );
    expect(mismatched.status).toBe(400);
    expect(body(mismatched)).toMatchObject({ id: 9, error: { code: -32020 } });
  });

  it("a server that cannot be made is a fault of the request (a logged 500), not the SDK's own 500 body", async () => {
    const broken = () => Promise.reject(new Error('the bots module did not load'));
    await expect(serveMcpRequest(broken, modern('acme', 10, 'tools/list'))).rejects.toThrow(/did not load/);
  });

  it('a notification is 202 with no body', async () => {
    const result = await serveMcpRequest(
      botsOf(STORE, 'acme'),
      request(
        'acme',
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: MODERN_META } },
        'POST',
        { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'notifications/cancelled' },
      ),
    );
    expect(result).toMatchObject({ status: 202 });
    expect(result.bodyText ?? '').toBe('');
  });
});
