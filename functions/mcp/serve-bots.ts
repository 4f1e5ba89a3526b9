/** POST /api/v1/mcp/tenants/{tenantId}/bots: the MCP server for bots (stateless MCP); GET and DELETE answer 405. */
import { createApiHandler } from '#shared/http/create-api-handler';
import { serveMcpRequest } from '#shared/mcp/serve-mcp-request';
import { mcpBots } from '#shared/schemas/route-validators.generated';
import { documentsStore } from '#shared/store/function-stores';

const documents = documentsStore();

export const handler = createApiHandler(mcpBots, (request) =>
  // Loaded on the first POST, with the MCP SDK it needs (see serve-mcp-request.ts).
  serveMcpRequest(
    async (onFault) => (await import('#shared/mcp/bots-server')).createBotsServer(documents, request.tenantId, onFault),
    request,
  ),
);
