/**
 * The MCP server for bots. The area's entries of the route table (route-table.ts); its operations'
 * prose and examples are beside them, in mcp-docs.ts.
 */
import type { RouteSpec } from './route-spec.ts';

/** A JSON-RPC request to the bots endpoint is small; anything larger is refused before MCP reads it. */
export const MCP_REQUEST_MAX_BYTES = 256 * 1024;

/**
 * The mcp routes, in the order the OpenAPI document lists them.
 *
 * @example mcpRoutes.map((route) => route.id) // ['mcpBots']
 */
export const mcpRoutes = [
  {
    id: 'mcpBots',
    method: 'POST',
    otherMethods: ['GET', 'DELETE'],
    path: '/api/v1/mcp/tenants/{tenantId}/bots',
    handler: 'functions/mcp/serve-bots.ts',
    scope: 'mcp:bots.read',
    tables: { documents: { operations: ['Query', 'GetItem'] } },
    schemas: {
      path: 'TenantPath',
      query: 'NoQuery',
      handlerParsedBody: 'JsonRpcRequest',
      response: { status: 200, schema: 'JsonRpcMessage', otherStatuses: [202] },
      errorBodies: { 400: 'JsonRpcBadRequest', 404: 'JsonRpcMethodNotFound', 405: 'JsonRpcMessage' },
    },
    faultBody: 'message-only',
    checksOrigin: true,
    bundlesMcpSdk: true,
    maxBodyBytes: MCP_REQUEST_MAX_BYTES,
    summary: 'MCP server for bots (Streamable HTTP, JSON-RPC 2.0)',
    errors: [400, 404, 405],
  },
] as const satisfies readonly RouteSpec[];
