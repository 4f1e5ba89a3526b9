/**
 * The MCP server of the bots endpoint: one tool, `list_bots`, over the tenant's `bots`
 * provisioning collection. The tenant arrives in the SDK's `authInfo`, set per request by the
 * handler from the authorizer's context; nothing about the caller lives in module state.
 *
 * A server is made per request, so what does not depend on the request is made once per process:
 * the tool's zod schemas, and the JSON Schema validator the SDK would otherwise build (an Ajv with
 * its formats: some 20 ms on the first request, 0.6 ms on each after) for elicitation, which this
 * server never asks for.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
// The SDK's own zod entry point, imported as a namespace so the bundle keeps only what is used.
import * as z from 'zod/v4';
import type { DocumentsStore } from '#shared/store/documents-store';

export const BOTS_COLLECTION = 'bots';
/**
 * The list travels twice, as structured content and as a text copy, and the text copy is escaped
 * once more than the rest; measured as the store measures (escaped once), the whole response is
 * at most about three times this: well under Lambda's 6 MB.
 */
const BOTS_BUDGET_BYTES = 1536 * 1024;

const LIST_BOTS_INPUT = {
  limit: z.number().int().min(1).max(100).default(20).describe('How many bots to return, 1 to 100 (default 20).'),
};
const LIST_BOTS_OUTPUT = { bots: z.array(z.looseObject({ id: z.string() })) };

let sharedAjv: AjvJsonSchemaValidator | undefined;
const clientSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType) {
    sharedAjv ??= new AjvJsonSchemaValidator();
    return sharedAjv.getValidator<T>(schema);
  },
};

/**
 * `onFault` hears of a failure that is ours (the store), not the caller's: the SDK would turn it
 * into a tool result carrying the raw error text; the request ends as a logged 500 instead.
 */
export function createBotsServer(
  documents: DocumentsStore,
  onFault: (error: unknown) => void = () => undefined,
): McpServer {
  const server = new McpServer({ name: 'cxm-bots', version: '1.0.0' }, { jsonSchemaValidator: clientSchemaValidator });
  server.registerTool(
    'list_bots',
    {
      title: 'List bots',
      description: "Lists the tenant's bots (its `bots` provisioning collection), ordered by id.",
      inputSchema: LIST_BOTS_INPUT,
      outputSchema: LIST_BOTS_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ limit }, extra) => {
      const tenantId = extra.authInfo?.extra?.tenantId;
      if (typeof tenantId !== 'string') throw new Error('The request carries no authorised tenant.');
      const page = await documents
        .list(tenantId, BOTS_COLLECTION, { limit, maxBytes: BOTS_BUDGET_BYTES })
        .catch((error: unknown) => {
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
  // registerTool advertises `tools.listChanged`, but this list never changes and no notification
  // could reach a stateless client anyway: tell clients not to wait for one.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
