/**
 * One MCP request, statelessly (D8): a new server and a new Web Standard Streamable HTTP transport
 * (no session id, JSON responses) per request, fed a web Request built from the proxy event and
 * answered from its Response. Nothing is reused across requests.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ApiRequest, ApiResult } from '#shared/http/api-types';

/** Headers that describe the hop to us, not the message: the web Request sets its own. */
const HOP_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'expect']);

/**
 * Streamable HTTP asks clients to accept both JSON and an event stream. We always answer JSON,
 * so a client that accepts JSON (or anything) is served as if it had asked for both.
 */
function normaliseAccept(accept: string | null): string | null {
  const value = (accept ?? '*/*').toLowerCase();
  return value.includes('application/json') || value.includes('*/*') ? 'application/json, text/event-stream' : accept;
}

export function toWebRequest(http: ApiRequest['http']): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(http.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name.toLowerCase())) headers.set(name, value);
  }
  const accept = normaliseAccept(headers.get('accept'));
  if (accept !== null) headers.set('accept', accept);
  return new Request(http.selfUrl, { method: http.method, headers, body: http.method === 'POST' ? new Uint8Array(http.rawBody) : undefined });
}

/** The spec's MCP HTTP errors are 400 `{code: BadRequest, message}`: keep the JSON-RPC error and add both. */
function asBadRequest(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    const message = typeof parsed.error?.message === 'string' ? parsed.error.message : 'Bad request';
    return JSON.stringify({ ...parsed, code: 'BadRequest', message });
  } catch {
    return JSON.stringify({ code: 'BadRequest', message: body || 'Bad request' });
  }
}

export async function serveMcpRequest(server: McpServer, request: ApiRequest): Promise<ApiResult> {
  if (request.http.method !== 'POST') {
    return {
      status: 405,
      headers: { Allow: 'POST' },
      body: { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this stateless MCP endpoint takes POST only.' }, id: null },
    };
  }
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(toWebRequest(request.http), {
      // The key itself never reaches MCP code: its id and what it grants do.
      authInfo: { token: '', clientId: request.caller.keyId, scopes: request.caller.scopes, extra: { tenantId: request.tenantId } },
    });
    const text = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    if (response.status >= 400 && response.status < 500) return { status: 400, headers, rawBody: asBadRequest(text) };
    return { status: response.status, headers, rawBody: text };
  } finally {
    await server.close();
  }
}
