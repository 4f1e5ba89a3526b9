/** GET /api/v1/reporting/tenants/{tenantId}/assistant/conversations (reporting lists). */
import { createApiHandler } from '#shared/http/create-api-handler';
import { serveReportList } from '#shared/reporting/serve-report-list';
import { listAssistantConversations } from '#shared/schemas/route-validators.generated';
import { cursorKeysSource } from '#shared/secrets/cursor-keys';
import { reportingIndex } from '#shared/store/function-stores';

// Set going at load; a failure there, left unhandled, ends the environment's init as a throw would.
const dependencies = reportingIndex().then(
  (index) => ({ kind: 'assistant', index, keys: cursorKeysSource() }) as const,
);

export const handler = createApiHandler(listAssistantConversations, async (request) =>
  serveReportList(await dependencies, request),
);
