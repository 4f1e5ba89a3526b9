/**
 * The bots server and the MCP bridge without HTTP: the tenant comes from authInfo, the key never
 * reaches MCP code, a store fault is not turned into a tool result, and each request is served
 * by its own server.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
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
    read: async () => undefined,
    replace: async () => ({ kind: 'written', created: true, etag: 'unused' }),
    update: async () => ({ kind: 'absent' }),
  };
}

function request(tenantId: string, body: unknown, method = 'POST'): ApiRequest {
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

describe('the bots tool', () => {
  it('reads the tenant of the request from authInfo, nothing else', async () => {
    const seen: string[] = [];
    const store = storeFor(
      { acme: [{ id: 'b1', json: '{"name":"A"}' }], globex: [{ id: 'g1', json: '{"name":"G"}' }] },
      seen,
    );
    const result = await serveMcpRequest(
      (onFault) => createBotsServer(store, onFault),
      request('globex', callListBots(1)),
    );
    expect(JSON.parse(result.bodyText!).result.structuredContent).toEqual({ bots: [{ id: 'g1', name: 'G' }] });
    expect(seen).toEqual(['globex/bots']);
  });

  it('ends a store fault as an error of the request (a logged 500), not as a tool result with its text', async () => {
    const failing: DocumentsStore = {
      ...storeFor({}),
      list: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:8000 arn:aws:dynamodb:secret')),
    };
    await expect(
      serveMcpRequest((onFault) => createBotsServer(failing, onFault), request('acme', callListBots(1))),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('the bridge', () => {
  it('never hands the key or cookies to MCP code', async () => {
    const probe = () => {
      const server = new McpServer({ name: 'probe', version: '1.0.0' });
      server.registerTool('probe', { description: 'what a tool sees' }, async (extra) => ({
        content: [
          { type: 'text', text: JSON.stringify({ authInfo: extra.authInfo, headers: extra.requestInfo?.headers }) },
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
      const server = createBotsServer(storeFor({}), onFault);
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
