/**
 * Endpoint 2, stateless MCP in its 2025 era: the v1 MCP SDK client and raw JSON-RPC through the
 * local gateway. The 2026-07-28 revision and the v2 clients: mcp-clients.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FOREIGN_HOST_MESSAGE,
  FOREIGN_ORIGIN_MESSAGE,
  PERMISSION_DENIED_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
} from '#shared/api/api-error';
import { validatorFor } from '#shared/http/validator-for';
import { createRawClient } from '#test/support/raw-client';
import { expectDocumented, startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('mcp');
const other = uniqueTenant('mcp-other');
let key: string;

const botIds = ['bot-c', 'bot-a', 'bot-b'];

beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.createKey([tenant], ['mcp:bots.read']));
  for (const id of botIds)
    await api.addDocument(tenant, 'bots', id, { name: `Bot ${id}`, config: { lang: 'en', channels: ['chat'] } });
  // A data member named id does not replace the document id.
  await api.addDocument(tenant, 'bots', 'bot-d', { id: 'spoofed', name: 'D' });
  await api.addDocument(tenant, 'users', 'not-a-bot', { name: 'User' });
  await api.addDocument(other, 'bots', 'bot-a', { name: 'Foreign bot' });
  await api.addDocument(other, 'bots', 'foreign-only', { name: 'Foreign' });
});
afterAll(() => api.close());

const mcpPath = (t = tenant) => `/api/v1/mcp/tenants/${t}/bots`;

async function connect(k = key, t = tenant): Promise<Client> {
  const client = new Client({ name: 'cxm-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${api.url}${mcpPath(t)}`), {
    requestInit: { headers: { Authorization: `Bearer ${k}` } },
    // What the SDK receives is held to the OpenAPI document too (its GET for a stream gets the documented 405).
    fetch: api.fetch,
  });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST. */
function rpc(body: unknown, headers: Record<string, string> = {}, k: string | undefined = key, t = tenant) {
  return api.call('POST', mcpPath(t), k, {
    body,
    headers: { Accept: 'application/json, text/event-stream', ...headers },
  });
}

describe('the v1 SDK client', () => {
  it('connects, lists both tools with their schemas, and calls list_bots', async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['list_bots', 'get_bot']);
      const [tool] = tools;
      expect(tool!.title).toBe('List bots');
      expect(tool!.description).toMatch(/bots/);
      expect(tool!.inputSchema.properties!.limit).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: 100,
        default: 20,
      });
      expect(tool!.outputSchema).toMatchObject({ type: 'object', properties: { bots: { type: 'array' } } });

      const result = await client.callTool({ name: 'list_bots', arguments: {} });
      expect(result.isError).toBeFalsy();
      const bots = (result.structuredContent as { bots: Array<Record<string, unknown>> }).bots;
      expect(bots.map((b) => b.id)).toEqual(['bot-a', 'bot-b', 'bot-c', 'bot-d']);
      expect(bots[0]).toEqual({ id: 'bot-a', name: 'Bot bot-a', config: { lang: 'en', channels: ['chat'] } });
      expect(bots[3]).toEqual({ id: 'bot-d', name: 'D' });
      const content = result.content as Array<{ type: string; text: string }>;
      expect(content).toHaveLength(1);
      expect(content[0]!.type).toBe('text');
      expect(JSON.parse(content[0]!.text)).toEqual(result.structuredContent);
    } finally {
      await client.close();
    }
  });

  it('honours limit', async () => {
    const client = await connect();
    try {
      const result = await client.callTool({ name: 'list_bots', arguments: { limit: 2 } });
      expect((result.structuredContent as { bots: Array<{ id: string }> }).bots.map((b) => b.id)).toEqual([
        'bot-a',
        'bot-b',
      ]);
    } finally {
      await client.close();
    }
  });

  it.each([{ limit: 0 }, { limit: 101 }, { limit: 2.5 }, { limit: 'ten' }, { limit: null }])(
    'invalid arguments %j give a tool error, not a crash',
    async (args) => {
      const client = await connect();
      try {
        const result = await client.callTool({ name: 'list_bots', arguments: args as Record<string, unknown> });
        expect(result.isError).toBe(true);
        expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/limit/i);
      } finally {
        await client.close();
      }
    },
  );

  it("never shows another tenant's bots", async () => {
    const { key: otherKey } = await api.createKey([other], ['mcp:*']);
    const client = await connect(otherKey, other);
    try {
      const result = await client.callTool({ name: 'list_bots', arguments: { limit: 100 } });
      expect((result.structuredContent as { bots: Array<{ id: string; name: string }> }).bots).toEqual([
        { id: 'bot-a', name: 'Foreign bot' },
        { id: 'foreign-only', name: 'Foreign' },
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('capabilities', () => {
  it('initialize does not advertise tools.listChanged: the tool list never changes', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cxm-test', version: '1.0.0' } },
    };
    const response = await rpc(initialize);
    expect(response.status).toBe(200);
    const { capabilities } = (response.json as { result: { capabilities: { tools?: { listChanged?: boolean } } } })
      .result;
    expect(capabilities.tools).toBeDefined();
    expect(capabilities.tools!.listChanged).not.toBe(true);
  });
});

describe('raw JSON-RPC', () => {
  const listTools = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

  it.each([0, 7, 'abc', '0', ''])('echoes the id %j with its exact type', async (id) => {
    const response = await rpc(listTools(id));
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"id":${JSON.stringify(id)}`);
    expect((response.json as { id: unknown }).id).toBe(id);
    expect(validatorFor('JsonRpcMessage')(response.json)).toBe(true);
  });

  it('calls list_bots without a prior initialize (stateless)', async () => {
    const response = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_bots', arguments: { limit: 1 } },
    });
    expect(response.status).toBe(200);
    expect((response.json as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
      bots: [{ id: 'bot-a', name: 'Bot bot-a', config: { lang: 'en', channels: ['chat'] } }],
    });
  });

  it('answers a notification with 202 and no body', async () => {
    const response = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(response.status).toBe(202);
    expect(response.text).toBe('');
  });

  it('answers an unknown method with JSON-RPC -32601', async () => {
    const response = await rpc({ jsonrpc: '2.0', id: 'm', method: 'bots/delete' });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ jsonrpc: '2.0', id: 'm', error: { code: -32601 } });
  });

  it('answers malformed JSON with 400: JSON-RPC -32700, and the spec code BadRequest', async () => {
    const response = await rpc('{"jsonrpc":"2.0", "id": 1, "method": ');
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700 },
      code: 'BadRequest',
      message: expect.any(String),
    });
  });

  it('answers an unknown tool with an error, not a crash', async () => {
    const response = await rpc({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'drop_bots', arguments: {} },
    });
    expect(response.status).toBe(200);
    const body = response.json as { result?: { isError?: boolean }; error?: unknown };
    expect(body.error ?? body.result?.isError).toBeTruthy();
  });

  it.each(['GET', 'DELETE'])('%s is 405 with Allow: POST', async (method) => {
    const response = await api.call(method, mcpPath(), key, {
      headers: { Accept: 'application/json, text/event-stream' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it.each([
    ['application/json alone', { Accept: 'application/json' }],
    ['no Accept header', {}],
    ['*/*', { Accept: '*/*' }],
  ])('accepts %s', async (_name, headers) => {
    const response = await api.call('POST', mcpPath(), key, { body: listTools(3), headers });
    expect(response.status).toBe(200);
    expect((response.json as { id: number }).id).toBe(3);
  });

  it('refuses an Accept that allows no JSON with 400 BadRequest', async () => {
    const response = await api.call('POST', mcpPath(), key, { body: listTools(4), headers: { Accept: 'text/html' } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'BadRequest' });
  });
});

describe('authentication and authorization before MCP', () => {
  it('401 {code, message} without a key', async () => {
    const response = await api.call('POST', mcpPath(), undefined, {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE });
  });

  it("403 {code, message} for another tenant's path", async () => {
    const response = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, key, other);
    expect(response.status).toBe(403);
    expect(response.json).toEqual({ code: 'PermissionDenied', message: PERMISSION_DENIED_MESSAGE });
  });

  it.each([
    ['mcp:bots.read', 200],
    ['mcp:bots.*', 200],
    ['mcp:read', 200],
    ['mcp:*', 200],
    ['mcp:write', 403],
    ['provisioning:*', 403],
  ] as const)('%s: %i', async (scope, status) => {
    const { key: k } = await api.createKey([tenant], [scope]);
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, k)).status).toBe(status);
  });

  it('the SDK client sees a 401 as a failed connection', async () => {
    await expect(connect(`cxm_aaaaaaaaaaaa_${'A'.repeat(40)}`)).rejects.toThrow(/Unauthenticated/);
  });
});

describe('under load and at the limits', () => {
  it('40 concurrent calls from two tenants each see only their own bots', async () => {
    const { key: otherKey } = await api.createKey([other], ['mcp:bots.read']);
    const calls = Array.from({ length: 40 }, (_, i) => {
      const mine = i % 2 === 0;
      return rpc(
        { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'list_bots', arguments: { limit: 100 } } },
        {},
        mine ? key : otherKey,
        mine ? tenant : other,
      ).then((response) => ({
        mine,
        response,
      }));
    });
    for (const { mine, response } of await Promise.all(calls)) {
      const ids = (
        response.json as { result: { structuredContent: { bots: Array<{ id: string }> } } }
      ).result.structuredContent.bots.map((b) => b.id);
      expect(ids).toEqual(mine ? ['bot-a', 'bot-b', 'bot-c', 'bot-d'] : ['bot-a', 'foreign-only']);
    }
  });

  it('answers with the common Content-Type, charset included', async () => {
    const response = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('refuses a request body over 256 KiB with 413 before MCP reads it', async () => {
    const response = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(300 * 1024) },
    });
    expect(response.status).toBe(413);
    expect((response.json as { code: string }).code).toBe('PayloadTooLarge');
  });

  it("keeps the whole answer within Lambda's 6 MB, even for bots full of characters JSON escapes", async () => {
    const heavy = uniqueTenant('heavy');
    const { key: heavyKey } = await api.createKey([heavy], ['mcp:*']);
    // 320 KB as stored JSON text; about twice that again once escaped in the envelope.
    const quotes = '"\\'.repeat(80_000);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => api.addDocument(heavy, 'bots', `heavy-${i}`, { prompt: quotes })),
    );
    const response = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_bots', arguments: { limit: 100 } } },
      {},
      heavyKey,
      heavy,
    );
    expect(response.status).toBe(200);
    const bots = (response.json as { result: { structuredContent: { bots: unknown[] } } }).result.structuredContent
      .bots;
    expect(bots.length).toBeGreaterThan(0);
    expect(bots.length).toBeLessThan(6);
    // What Lambda returns is the body as a JSON string inside its response envelope.
    expect(Buffer.byteLength(JSON.stringify(response.text))).toBeLessThan(6 * 1024 * 1024);
  });
});

describe('Origin and Host (the MCP origin check: DNS-rebinding protection)', () => {
  const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const port = () => new URL(api.url).port;

  it('refuses an Origin the gateway does not serve with 403 PermissionDenied, saying why and what to do, with the common headers', async () => {
    const response = await rpc(listTools, { Origin: 'http://evil.example.com' });
    expect(response.status).toBe(403);
    expect(response.json).toEqual({ code: 'PermissionDenied', message: FOREIGN_ORIGIN_MESSAGE });
    expect(FOREIGN_ORIGIN_MESSAGE).toMatch(/Origin/);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  // `null` is what a sandboxed or file page sends; then the machine's name over another scheme, and
  // names that only contain or resemble it (what a rebound name looks like).
  it.each(['null', 'https://127.0.0.1', 'http://127.0.0.1.evil.example.com', 'http://localhost.evil.example.com:3000'])(
    'refuses Origin %j',
    async (origin) => {
      expect((await rpc(listTools, { Origin: origin })).status).toBe(403);
    },
  );

  // A port forward (ssh -L 9000:127.0.0.1:<port>) keeps the machine's name and changes the port,
  // as the MCP SDK's localhost validation allows.
  it.each(['http://127.0.0.1:1', 'http://localhost:9000', 'http://[::1]:9000'])(
    "accepts Origin %j, the machine's own name on another port",
    async (origin) => {
      expect((await rpc(listTools, { Origin: origin })).status).toBe(200);
    },
  );

  it.each(['127.0.0.1', 'localhost', 'LocalHost'])('accepts its own origin http://%s:<port>', async (host) => {
    const response = await rpc(listTools, { Origin: `http://${host}:${port()}` });
    expect(response.status).toBe(200);
    expect((response.json as { result: { tools: unknown[] } }).result.tools).toHaveLength(2);
  });

  it('accepts a request without Origin: a server-side caller', async () => {
    expect((await rpc(listTools)).status).toBe(200);
  });

  it("checks the key first: 401 without one, and the key's own 403 for another tenant, whatever the Origin", async () => {
    const evil = { Origin: 'http://evil.example.com' };
    const anonymous = await api.call('POST', mcpPath(), undefined, { body: listTools, headers: evil });
    expect(anonymous.json).toEqual({ code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE });
    expect((await rpc(listTools, evil, key, other)).json).toEqual({
      code: 'PermissionDenied',
      message: PERMISSION_DENIED_MESSAGE,
    });
  });

  it('refuses a foreign Host with 403, even with the matching Origin (a name rebound to 127.0.0.1)', async () => {
    const raw = createRawClient(api.url);
    try {
      const send = async (host: string, origin: string | undefined = `http://${host}`) => {
        const body = JSON.stringify(listTools);
        const response = await raw.send({
          method: 'POST',
          target: mcpPath(),
          headers: {
            Host: host,
            ...(origin && { Origin: origin }),
            Authorization: `Bearer ${key}`,
            'Content-Type': 'application/json',
            Accept: 'application/json',
          },
          body,
        });
        const headers = new Headers(
          Object.entries(response.headers).flatMap(([name, value]) =>
            typeof value === 'string' ? [[name, value] as [string, string]] : [],
          ),
        );
        expectDocumented(
          'POST',
          `${api.url}${mcpPath()}`,
          new Response(null, { status: response.status, headers }),
          response.text,
        );
        return response;
      };
      const rebound = await send(`evil.example.com:${port()}`);
      expect(rebound.status).toBe(403);
      expect(rebound.json).toEqual({ code: 'PermissionDenied', message: FOREIGN_HOST_MESSAGE });
      expect((await send(`localhost:${port()}`)).status).toBe(200);
      // A port forward (ssh -L 9000:127.0.0.1:<port>, an editor's forwarded port) keeps the name
      // and changes the port: a server-side client through it is served, a rebound name on it is not.
      expect((await send('127.0.0.1:9000', undefined)).status).toBe(200);
      expect((await send('localhost:9000', undefined)).status).toBe(200);
      expect((await send('evil.example.com:9000', undefined)).status).toBe(403);
    } finally {
      raw.close();
    }
  });

  it('leaves routes that do not declare the check alone', async () => {
    const { key: readKey } = await api.createKey([tenant], ['provisioning:bots.read']);
    const response = await api.call('GET', `/api/v1/provisioning/tenants/${tenant}/bots`, readKey, {
      headers: { Origin: 'http://evil.example.com' },
    });
    expect(response.status).toBe(200);
  });
});
