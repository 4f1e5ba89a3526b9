/**
 * The MCP server of the bots endpoint: two read-only tools over the tenant's `bots` provisioning
 * collection, `list_bots` and `get_bot`, the same for both protocol eras (serve-mcp-request.ts
 * chooses the era per request). The tenant is an argument, taken by the handler from the
 * authorizer's context; nothing about the caller lives in module state.
 *
 * A server is made per request, so what does not depend on the request is made once per process:
 * the tools' schemas, and the validator of client answers (sdk-shims.ts), in place of the Ajv the
 * SDK would otherwise build for elicitation, which this server never asks for.
 */
import { type CacheHint, type CallToolResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { NoClientAnswers } from '#shared/mcp/sdk-shims';
import type { DocumentsStore } from '#shared/store/documents-store';

export const BOTS_COLLECTION = 'bots';
/**
 * The list travels twice, as structured content and as a text copy, and the text copy is escaped
 * once more than the rest; measured as the store measures (escaped once), the whole response is
 * at most about three times this: well under Lambda's 6 MB.
 */
const BOTS_BUDGET_BYTES = 1536 * 1024;

/**
 * How long a client may keep `tools/list` and `server/discover` (2026-07-28 cache hints): the
 * tools change only with a deployment, and each tenant's key may see another server, so the
 * answer is the caller's own (`private`).
 */
export const TOOLS_CACHE_HINT: CacheHint = { ttlMs: 10 * 60 * 1000, cacheScope: 'private' };

/** A bot as the tools answer it: its id and its document's members (the stored id wins over a `data.id`). */
const BOT = z.looseObject({ id: z.string().describe("The bot's document id in the `bots` collection.") });

const LIST_BOTS_INPUT = z.object({
  limit: z.number().int().min(1).max(100).default(20).describe('How many bots to return, 1 to 100 (default 20).'),
});
const LIST_BOTS_OUTPUT = z.object({ bots: z.array(BOT).describe('The bots, ordered by id.') });
const GET_BOT_INPUT = z.object({
  // A document id's rule (1 to 512 code points, no path separator): any other names no document.
  id: z
    .string()
    .regex(/^[^/\\]{1,512}$/u, 'a bot id is 1 to 512 characters, without / or \\')
    .describe("The bot's document id, as `list_bots` answers it."),
});
const GET_BOT_OUTPUT = z.object({ bot: BOT });
const CLIENT_ANSWERS = new NoClientAnswers();

function asBot(id: string, json: string): { id: string } {
  // Spread keeps every member an own property; the stored id wins over a `data.id`.
  const bot: Record<string, unknown> = { id, ...(JSON.parse(json) as Record<string, unknown>) };
  bot.id = id;
  return bot as { id: string };
}

/** A tool's answer: the structured content and, for clients that read only text, the same as JSON. */
function answer<T extends Record<string, unknown>>(structuredContent: T): CallToolResult & { structuredContent: T } {
  return { structuredContent, content: [{ type: 'text', text: JSON.stringify(structuredContent) }] };
}

/**
 * The server for one request of `tenantId`. `onFault` hears of a failure that is ours (the store),
 * not the caller's: the SDK would turn it into a tool result carrying the raw error text; the
 * request ends as a logged 500 instead.
 *
 * @example const server = createBotsServer(documentsStore(), request.tenantId, (error) => (fault ??= error));
 */
export function createBotsServer(
  documents: DocumentsStore,
  tenantId: string,
  onFault: (error: unknown) => void = () => undefined,
): McpServer {
  const server = new McpServer(
    { name: 'cxm-bots', version: '1.0.0' },
    {
      jsonSchemaValidator: CLIENT_ANSWERS,
      cacheHints: { 'tools/list': TOOLS_CACHE_HINT, 'server/discover': TOOLS_CACHE_HINT },
    },
  );
  const ours = <T>(read: Promise<T>): Promise<T> =>
    read.catch((error: unknown) => {
      onFault(error);
      throw new Error('The bots could not be read.');
    });

  server.registerTool(
    'list_bots',
    {
      title: 'List bots',
      description: "Lists the tenant's bots (its `bots` provisioning collection), ordered by id.",
      inputSchema: LIST_BOTS_INPUT,
      outputSchema: LIST_BOTS_OUTPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ limit }) => {
      const page = await ours(documents.list(tenantId, BOTS_COLLECTION, { limit, maxBytes: BOTS_BUDGET_BYTES }));
      return answer({ bots: page.entries.map((entry) => asBot(entry.id, entry.json)) });
    },
  );

  server.registerTool(
    'get_bot',
    {
      title: 'Get a bot',
      description: "Reads one bot's current document by id from the tenant's `bots` provisioning collection.",
      inputSchema: GET_BOT_INPUT,
      outputSchema: GET_BOT_OUTPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id }) => {
      const stored = await ours(documents.read(tenantId, BOTS_COLLECTION, id));
      if (!stored) {
        const text = `No bot has the id ${JSON.stringify(id)} in this tenant's bots collection; list_bots lists the ids there are.`;
        return { isError: true, content: [{ type: 'text', text }] };
      }
      return answer({ bot: asBot(id, stored.json) });
    },
  );
  // registerTool advertises `tools.listChanged`, but this list never changes while a deployment
  // serves it, and no notification could reach a stateless client anyway.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
