/**
 * Real MCP clients against the bots endpoint through the gateway, one per way a client meets it
 * today: the official v2 client pinned to 2026-07-28, the v2 client in `auto` mode (a
 * `server/discover` probe, which must not be refused), the v2 client without negotiation and the
 * v1 SDK client (both 2025-era, through `initialize`). Each connects, lists both tools, calls them,
 * and reads a missing bot as a tool error. The bundles project runs this file again, so both
 * runtimes serve both eras. Beside them, what the 2026-07-28 revision requires of the HTTP exchange
 * that no client shows: a header that disagrees with the body, and the 401 challenge.
 *
 * @group sources bundles
 */
import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNAUTHENTICATED_MESSAGE } from '#shared/api/api-error';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

const MODERN = '2026-07-28';

let api: TestApi;
const tenant = uniqueTenant('mcp-clients');
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.createKey([tenant], ['mcp:bots.read']));
  for (const id of ['bot-b', 'bot-a']) await api.addDocument(tenant, 'bots', id, { name: `Bot ${id}` });
});
afterAll(() => api?.close());

const url = () => new URL(`${api.url}/api/v1/mcp/tenants/${tenant}/bots`);

/** One exchange as the client saw it: the JSON-RPC method it sent and the HTTP status it got. */
interface Seen {
  method: string;
  status: number;
}

/** The documented fetch (every answer held to the OpenAPI document), recording each exchange. */
function recordingFetch(seen: Seen[]): FetchLike {
  return async (input, init) => {
    const response = await api.fetch(input, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
    seen.push({ method: body.method ?? String(init?.method ?? 'GET'), status: response.status });
    return response;
  };
}

/** What every client below can do once connected, whichever SDK line it is. */
interface Connected {
  /** The revision the connection speaks. */
  version: string | undefined;
  listTools(): Promise<{ tools: { name: string; annotations?: { readOnlyHint?: boolean } }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{
    isError?: boolean;
    structuredContent?: unknown;
    content?: unknown;
  }>;
  close(): Promise<void>;
}

const headers = () => ({ Authorization: `Bearer ${key}` });

async function v2(mode: 'legacy' | 'auto' | { pin: string }, seen: Seen[]): Promise<Connected> {
  const client = new Client({ name: 'cxm-test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(url(), { requestInit: { headers: headers() }, fetch: recordingFetch(seen) }),
  );
  return {
    version: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools(),
    callTool: (params) => client.callTool(params) as ReturnType<Connected['callTool']>,
    close: () => client.close(),
  };
}

async function v1(seen: Seen[]): Promise<Connected> {
  const client = new V1Client({ name: 'cxm-test-v1', version: '1.0.0' });
  const transport = new V1Transport(url(), { requestInit: { headers: headers() }, fetch: recordingFetch(seen) });
  await client.connect(transport);
  return {
    version: transport.protocolVersion,
    listTools: () => client.listTools(),
    callTool: (params) => client.callTool(params) as ReturnType<Connected['callTool']>,
    close: () => client.close(),
  };
}

const CLIENTS: [string, string, (seen: Seen[]) => Promise<Connected>][] = [
  ['the v2 client pinned to 2026-07-28', MODERN, (seen) => v2({ pin: MODERN }, seen)],
  ['the v2 client in auto mode', MODERN, (seen) => v2('auto', seen)],
  ['the v2 client without negotiation', '2025-11-25', (seen) => v2('legacy', seen)],
  ['the v1 SDK client', '2025-11-25', (seen) => v1(seen)],
];

describe.each(CLIENTS)('%s', (_name, version, connect) => {
  it(`connects in ${version} with no refused request, and calls both tools`, async () => {
    const seen: Seen[] = [];
    const client = await connect(seen);
    try {
      expect(client.version).toBe(version);
      // Every request of the connect sequence was served: no probe refused, no fallback round trip.
      expect(seen.filter((exchange) => exchange.status >= 400)).toEqual([]);
      expect(seen.map((exchange) => exchange.method)).toEqual(
        version === MODERN ? ['server/discover'] : ['initialize', 'notifications/initialized'],
      );

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['list_bots', 'get_bot']);
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);

      const listed = await client.callTool({ name: 'list_bots', arguments: { limit: 5 } });
      expect(listed.structuredContent).toEqual({
        bots: [
          { id: 'bot-a', name: 'Bot bot-a' },
          { id: 'bot-b', name: 'Bot bot-b' },
        ],
      });
      const got = await client.callTool({ name: 'get_bot', arguments: { id: 'bot-b' } });
      expect(got.structuredContent).toEqual({ bot: { id: 'bot-b', name: 'Bot bot-b' } });

      const missing = await client.callTool({ name: 'get_bot', arguments: { id: 'bot-z' } });
      expect(missing.isError).toBe(true);
      expect(JSON.stringify(missing.content)).toContain('bot-z');
    } finally {
      await client.close();
    }
  });
});

describe('the 2026-07-28 exchange over HTTP', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  };
  const post = (body: unknown, extra: Record<string, string>, withKey = true) =>
    api.call('POST', url().pathname, withKey ? key : undefined, {
      body,
      headers: { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': MODERN, ...extra },
    });

  it('a request whose Mcp-Method disagrees with its body is 400 with -32020 and BadRequest, and is not served', async () => {
    const response = await post(
      { jsonrpc: '2.0', id: 'm1', method: 'tools/call', params: { name: 'list_bots', arguments: {}, _meta: meta } },
      { 'Mcp-Method': 'tools/list', 'Mcp-Name': 'list_bots' },
    );
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ jsonrpc: '2.0', id: 'm1', error: { code: -32020 }, code: 'BadRequest' });
    expect((response.json as { message: string }).message).toMatch(/Mcp-Method/);
    expect(response.text).not.toContain('Bot bot-a');
  });

  it('tools/list carries resultType and the cache hints: private, for ten minutes', async () => {
    const response = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } },
      {
        'Mcp-Method': 'tools/list',
      },
    );
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      id: 2,
      result: { resultType: 'complete', ttlMs: 600_000, cacheScope: 'private' },
    });
  });

  it.each([
    ['without a key', undefined],
    ['with a key the API never issued', `cxm_abcdefghijkl_${'Z'.repeat(40)}`],
  ])('401 %s carries WWW-Authenticate: Bearer beside {code, message}', async (_case, badKey) => {
    const response = await api.call('POST', url().pathname, badKey, {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { Accept: 'application/json, text/event-stream' },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.json).toEqual({ code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE });
  });
});
