/** A JSON-RPC 2.0 response or error object (the MCP endpoint's own body, not `{code, message}`). */
export const JsonRpcMessage = {
  $id: 'JsonRpcMessage',
  type: 'object',
  required: ['jsonrpc'],
  properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'number', 'null'] }, result: { type: 'object' }, error: { type: 'object' } },
} as const;
