/** POST /api/v1/mcp/tenants/{tenantId}/bots: the MCP server for bots (spec endpoint 2, D8); GET and DELETE answer 405. */
import { createApiHandler } from '#shared/http/create-api-handler';
import { createBotsServer } from '#shared/mcp/bots-server';
import { serveMcpRequest } from '#shared/mcp/serve-mcp-request';
import { documentsStore } from '#shared/store/documents-table';

const documents = documentsStore();

export const handler = createApiHandler('mcpBots', (request) => serveMcpRequest((onFault) => createBotsServer(documents, onFault), request));
