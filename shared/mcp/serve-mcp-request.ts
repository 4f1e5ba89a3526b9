/**
 * One MCP request, statelessly: a new server and a new Web Standard Streamable HTTP transport
 * (no session id, JSON responses) per request, fed a web Request built from the proxy event and
 * answered from its Response. Nothing is reused across requests.
 *
 * The SDK (with the zod schemas of the whole protocol, built when its modules load) is imported on
 * the first POST rather than at init: a 405 never needs it. See test/README.md, Performance,
 * for what that moves and what it saves.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ApiRequest, ApiResult } from '#shared/http/api-types';

/** Makes the request's server; the tool's failures that are ours go to `onFault`. */
export type McpServerFactory = (onFault: (error: unknown) => void) => McpServer | Promise<McpServer>;

/**
 * Headers MCP code never sees: those of the hop to us (the web Request sets its own), and the
 * credentials, which the SDK would otherwise hand to every tool in `requestInfo.headers`.
 */
const DROPPED_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'expect',
  'authorization',
  'cookie',
]);

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
  return new Request(http.selfUrl, {
    method: http.method,
    headers,
    body: http.method === 'POST' ? new Uint8Array(http.rawBody) : undefined,
  });
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

/**
 * MCP dropped JSON-RPC batches (2025-06-18) and the contract takes one JSON-RPC object, but the
 * SDK still answers an array (with an array, or 202 for `[]`): refuse it as an invalid request.
 */
function isBatch(rawBody: Buffer): boolean {
  const text = rawBody.toString('utf8');
  if (!/^\s*\[/.test(text)) return false;
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    // Not JSON at all: the SDK answers -32700 Parse error.
    return false;
  }
}

export async function serveMcpRequest(createServer: McpServerFactory, request: ApiRequest): Promise<ApiResult> {
  if (request.http.method !== 'POST') {
    return {
      status: 405,
      headers: { Allow: 'POST' },
      body: {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this stateless MCP endpoint takes POST only.' },
        id: null,
      },
    };
  }
  if (isBatch(request.http.rawBody)) {
    const message = 'Invalid Request: JSON-RPC batches are not supported; send one JSON-RPC object per request.';
    return {
      status: 400,
      body: { jsonrpc: '2.0', error: { code: -32600, message }, id: null, code: 'BadRequest', message },
    };
  }
  const { WebStandardStreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
  );
  let fault: { error: unknown } | undefined;
  const server = await createServer((error) => (fault ??= { error }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(toWebRequest(request.http), {
      // The key itself never reaches MCP code: its id and what it grants do.
      authInfo: {
        token: '',
        clientId: request.caller.keyId,
        scopes: request.caller.scopes,
        extra: { tenantId: request.tenantId },
      },
    });
    const text = await response.text();
    // The chain maps it: a logged 500 whose body holds only a message.
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
