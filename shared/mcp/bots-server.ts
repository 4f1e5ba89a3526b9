/**
 * The MCP server of the bots endpoint (D8): one tool, `list_bots`, over the tenant's `bots`
 * provisioning collection. The tenant arrives in the SDK's `authInfo`, set per request by the
 * handler from the authorizer's context; nothing about the caller lives in module state.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { DocumentsStore } from '#shared/store/documents-store';

export const BOTS_COLLECTION = 'bots';
/**
 * The list travels twice, as structured content and as a text copy, and the text copy is escaped
 * once more than the rest; measured as the store measures (escaped once), the whole response is
 * at most about three times this: well under Lambda's 6 MB.
 */
const BOTS_BUDGET_BYTES = 1536 * 1024;

/**
 * `onFault` hears of a failure that is ours (the store), not the caller's: the SDK would turn it
 * into a tool result carrying the raw error text; the request ends as a logged 500 instead.
 */
export function createBotsServer(documents: DocumentsStore, onFault: (error: unknown) => void = () => undefined): McpServer {
  const server = new McpServer({ name: 'cxm-bots', version: '1.0.0' });
  server.registerTool(
    'list_bots',
    {
      title: 'List bots',
      description: "Lists the tenant's bots (its `bots` provisioning collection), ordered by id.",
      inputSchema: { limit: z.number().int().min(1).max(100).default(20).describe('How many bots to return, 1 to 100 (default 20).') },
      outputSchema: { bots: z.array(z.looseObject({ id: z.string() })) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ limit }, extra) => {
      const tenantId = extra.authInfo?.extra?.tenantId;
      if (typeof tenantId !== 'string') throw new Error('The request carries no authorised tenant.');
      const page = await documents.list(tenantId, BOTS_COLLECTION, { limit, maxBytes: BOTS_BUDGET_BYTES }).catch((error: unknown) => {
        onFault(error);
        throw new Error('The bots could not be read.');
      });
      const bots = page.entries.map((entry) => {
        // Spread keeps every member an own property; the stored id wins over a `data.id`.
        const bot: Record<string, unknown> = { id: entry.id, ...(JSON.parse(entry.json) as Record<string, unknown>) };
        bot.id = entry.id;
        return bot as { id: string };
      });
      const structuredContent = { bots };
      return { structuredContent, content: [{ type: 'text', text: JSON.stringify(structuredContent) }] };
    },
  );
  return server;
}
