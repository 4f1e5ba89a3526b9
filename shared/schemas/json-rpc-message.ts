const jsonRpcVersion = { const: '2.0' } as const;
/** A response's id: the request's, with its type, or null when the request's could not be read. */
const responseId = { type: ['string', 'number', 'null'] } as const;

/** A JSON-RPC 2.0 response or error object (the MCP endpoint's own body, not `{code, message}`). */
export const JsonRpcMessage = {
  $id: 'JsonRpcMessage',
  type: 'object',
  required: ['jsonrpc'],
  properties: { jsonrpc: jsonRpcVersion, id: responseId, result: { type: 'object' }, error: { type: 'object' } },
} as const;

/**
 * A JSON-RPC 2.0 request or notification as a client POSTs it to the MCP endpoint (endpoint
 * 2). The MCP SDK reads and checks it, not the chain; this schema documents it (OpenAPI).
 */
export const JsonRpcRequest = {
  $id: 'JsonRpcRequest',
  type: 'object',
  required: ['jsonrpc', 'method'],
  additionalProperties: false,
  properties: {
    jsonrpc: jsonRpcVersion,
    id: {
      type: ['string', 'number'],
      maxLength: 256,
      description:
        'Echoed in the response with its exact type. Absent in a notification, which is answered 202 without a body.',
    },
    method: {
      type: 'string',
      maxLength: 256,
      pattern: '^[A-Za-z0-9_./-]+$',
      description: "For example 'tools/list' or 'tools/call'.",
    },
    params: { type: 'object', description: "For 'tools/call': `name` (the tool) and `arguments`." },
  },
} as const;

/** A JSON-RPC error object: `rpcCode` pins its code where the status implies one. */
const jsonRpcError = <Code extends object>(rpcCode: Code) =>
  ({
    type: 'object',
    required: ['code', 'message'],
    properties: { code: rpcCode, message: { type: 'string' } },
  }) as const;

/**
 * A 400 of the MCP endpoint: the spec's `{code: BadRequest, message}`; when the MCP layer refused
 * the request, its JSON-RPC error envelope is kept alongside (shared/mcp/serve-mcp-request.ts).
 */
export const JsonRpcBadRequest = {
  $id: 'JsonRpcBadRequest',
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: {
    code: { const: 'BadRequest' },
    message: { type: 'string' },
    jsonrpc: jsonRpcVersion,
    id: responseId,
    error: jsonRpcError({ type: 'integer' }),
  },
} as const;

/**
 * A 404 of the MCP endpoint: a 2026-07-28 request for a method this server does not serve (the
 * revision answers JSON-RPC -32601 with HTTP 404), with the API's `{code: NotFound, message}`
 * alongside.
 */
export const JsonRpcMethodNotFound = {
  $id: 'JsonRpcMethodNotFound',
  type: 'object',
  required: ['code', 'message', 'jsonrpc', 'id', 'error'],
  additionalProperties: false,
  properties: {
    code: { const: 'NotFound' },
    message: { type: 'string' },
    jsonrpc: jsonRpcVersion,
    id: responseId,
    error: jsonRpcError({ const: -32601 }),
  },
} as const;
