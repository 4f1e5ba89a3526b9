/**
 * One MCP request, statelessly, in the protocol era the request itself chooses (the official SDK's
 * classification, `isLegacyRequest`):
 *
 * - 2026-07-28, whose every request carries its protocol version and client capabilities in
 *   `_meta`: the SDK's per-request entry (`createMcpHandler`, modern only), which answers
 *   `server/discover`, checks `Mcp-Method` and `Mcp-Name` against the body, and adds
 *   `resultType` and the cache hints;
 * - 2025-06-18 and 2025-11-25, which open with `initialize`: a new server and a Web Standard
 *   Streamable HTTP transport without sessions, answering JSON. The SDK's own stateless fallback
 *   for this era answers with an event stream, which the contract's JSON answer rules out.
 *
 * Either way a new server serves one request, fed a web Request built from the proxy event and
 * answered from its Response (in the function's bundle, those of web-fetch-classes.ts); nothing is
 * reused across requests, so any Lambda environment serves any request. The SDK (with the zod
 * schemas of the whole protocol) is imported on the first POST rather than at init: a 405 never
 * needs it.
 */
import type { AuthInfo, McpServer } from '@modelcontextprotocol/server';
import type { ApiRequest, ApiResult } from '#shared/http/api-types';

/** Makes the request's server, of either era; the tools' failures that are ours go to `onFault`. */
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

/** Headers of the SDK's answer that the API's answer does not carry: its own Content-Type, and the body's framing. */
const SDK_HEADERS_DROPPED = new Set(['content-type', 'content-length', 'transfer-encoding']);

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

/**
 * The API's `{code, message}` beside the SDK's JSON-RPC error, which is kept. A 2026-07-28 request
 * for a method this server lacks stays 404 (NotFound), as that revision requires; every other
 * refusal is the contract's 400 BadRequest.
 */
function asApiError(status: number, body: string): ApiResult {
  const code = status === 404 ? 'NotFound' : 'BadRequest';
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    const message = typeof parsed.error?.message === 'string' ? parsed.error.message : 'Bad request';
    return { status: status === 404 ? 404 : 400, bodyText: JSON.stringify({ ...parsed, code, message }) };
  } catch {
    return { status: 400, bodyText: JSON.stringify({ code: 'BadRequest', message: body || 'Bad request' }) };
  }
}

/**
 * `subscriptions/listen` opens an event stream that stays open for notifications. This server
 * sends none (its tool list changes only with a deployment; `tools.listChanged` is false) and a
 * Lambda function answers once, so the method is absent, as the revision lets a server without
 * those capabilities answer.
 */
function listenRefused(id: string | number): ApiResult {
  const message =
    'Method not found: subscriptions/listen. This server sends no notifications (its tool list changes only with a ' +
    'deployment), so it opens no subscription stream; call tools/list again after its ttlMs instead.';
  return {
    status: 404,
    body: { jsonrpc: '2.0', id, error: { code: -32601, message }, code: 'NotFound', message },
  };
}

/** The request's JSON body, parsed once here; undefined when it is not JSON (the SDK then answers -32700 itself). */
function parsedBodyOf(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Serves one MCP request with a server from `createServer`; a failure it reports through
 * `onFault` (ours, not the caller's) ends the request as a logged 500.
 *
 * @example const result = await serveMcpRequest((onFault) => createBotsServer(documents, tenantId, onFault), request);
 */
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
  const parsedBody = parsedBodyOf(request.http.rawBody);
  // MCP dropped JSON-RPC batches (2025-06-18) and the contract takes one JSON-RPC object, but the
  // SDK still answers an array (with an array, or 202 for `[]`): refuse it as an invalid request.
  if (Array.isArray(parsedBody)) {
    const message = 'Invalid Request: JSON-RPC batches are not supported; send one JSON-RPC object per request.';
    return {
      status: 400,
      body: { jsonrpc: '2.0', error: { code: -32600, message }, id: null, code: 'BadRequest', message },
    };
  }
  const { classifyInboundRequest, createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/server');
  let fault: { error: unknown } | undefined;
  const onFault = (error: unknown) => {
    fault ??= { error };
  };
  const webRequest = toWebRequest(request.http);
  // The key itself never reaches MCP code: its id and what it grants do.
  const authInfo: AuthInfo = {
    token: '',
    clientId: request.caller.keyId,
    scopes: request.caller.scopes,
    extra: { tenantId: request.tenantId },
  };
  // Read whole before the server closes: answers are JSON, never a stream.
  let response: Response;
  let text: string;
  if (await isLegacyRequest(webRequest, parsedBody)) {
    const server = await createServer(onFault);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      response = await transport.handleRequest(webRequest, { authInfo, parsedBody });
      text = await response.text();
    } finally {
      await server.close();
    }
  } else {
    // A listen the SDK would serve (its checks of the version, headers and envelope passed) is
    // refused; any other is answered by the SDK, refusals included. Only a body naming the method
    // is classified here: every other request is classified once, by the SDK.
    if ((parsedBody as { method?: unknown } | undefined)?.method === 'subscriptions/listen') {
      const route = classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: webRequest.headers.get('mcp-protocol-version') ?? undefined,
        mcpMethodHeader: webRequest.headers.get('mcp-method') ?? undefined,
        mcpNameHeader: webRequest.headers.get('mcp-name') ?? undefined,
        body: parsedBody,
      });
      if (route.kind === 'modern' && route.messageKind === 'request') return listenRefused(route.message.id);
    }
    // `auto` answers one JSON body unless a tool sends a message before its result, which these
    // never do; `json` would say so on the log at every request. A server that cannot be made is
    // ours to report: the SDK would answer its own 500 and log nothing.
    const handler = createMcpHandler(
      async () => {
        try {
          return await createServer(onFault);
        } catch (error) {
          onFault(error);
          throw error;
        }
      },
      { legacy: 'reject', responseMode: 'auto' },
    );
    try {
      response = await handler.fetch(webRequest, { authInfo, parsedBody });
      text = await response.text();
    } finally {
      await handler.close();
    }
  }
  // The chain maps it: a logged 500 whose body holds only a message. So does a 5xx the SDK made
  // of a failure it caught itself.
  if (fault) throw fault.error;
  if (response.status >= 500) throw new Error(`The MCP SDK answered ${response.status}: ${text}`);
  if (response.headers.get('content-type')?.startsWith('text/event-stream'))
    throw new Error('The MCP SDK answered with an event stream, which this endpoint never sends.');
  const headers: Record<string, string> = {};
  // The common Content-Type (with its charset) applies; the SDK's adds nothing. The framing is the
  // gateway's, of the body it sends (asApiError's, for one).
  response.headers.forEach((value, name) => {
    if (!SDK_HEADERS_DROPPED.has(name.toLowerCase())) headers[name] = value;
  });
  if (response.status >= 400 && response.status < 500) return { ...asApiError(response.status, text), headers };
  return { status: response.status, headers, bodyText: text };
}
