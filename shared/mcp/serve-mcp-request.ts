/**
 * One MCP request, statelessly (D8): a new server and a new Web Standard Streamable HTTP transport
 * (no session id, JSON responses) per request, fed a web Request built from the proxy event and
 * answered from its Response. Nothing is reused across requests.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ApiRequest, ApiResult } from '#shared/http/api-types';

/**
 * Headers MCP code never sees: those of the hop to us (the web Request sets its own), and the
 * credentials, which the SDK would otherwise hand to every tool in `requestInfo.headers`.
 */
const DROPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'expect', 'authorization', 'cookie']);

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
    if (value !== undefined && !DROPPED_HEADERS.has(name.toLowerCase())) headers.set(name, value);
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

export async function serveMcpRequest(
  createServer: (onFault: (error: unknown) => void) => McpServer,
  request: ApiRequest,
): Promise<ApiResult> {
  if (request.http.method !== 'POST') {
    return {
      status: 405,
      headers: { Allow: 'POST' },
      body: { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this stateless MCP endpoint takes POST only.' }, id: null },
    };
  }
  let fault: { error: unknown } | undefined;
  const server = createServer((error) => (fault ??= { error }));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(toWebRequest(request.http), {
      // The key itself never reaches MCP code: its id and what it grants do.
      authInfo: { token: '', clientId: request.caller.keyId, scopes: request.caller.scopes, extra: { tenantId: request.tenantId } },
    });
    const text = await response.text();
    // The chain maps it: a logged 500 whose body holds only a message (D8).
    if (fault) throw fault.error;
    const headers: Record<string, string> = {};
    // The common Content-Type (with its charset) applies; the SDK's adds nothing.
    response.headers.forEach((value, name) => {
      if (name.toLowerCase() !== 'content-type') headers[name] = value;
    });
    if (response.status >= 400 && response.status < 500) return { status: 400, headers, bodyText: asBadRequest(text) };
    return { status: response.status, headers, bodyText: text };
  } finally {
    await server.close();
  }
}
