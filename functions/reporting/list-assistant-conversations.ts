/** GET /api/v1/reporting/tenants/{tenantId}/assistant/conversations (reporting lists). */
import { createApiHandler } from '#shared/http/create-api-handler';
import { serveReportList } from '#shared/reporting/serve-report-list';
import { listAssistantConversations } from '#shared/schemas/route-validators.generated';
import { cursorKeysSource } from '#shared/secrets/cursor-keys';
import { reportingIndex } from '#shared/store/function-stores';

const dependencies = { kind: 'assistant', index: await reportingIndex(), keys: cursorKeysSource() } as const;

export const handler = createApiHandler(listAssistantConversations, (request) =>
  serveReportList(dependencies, request),
);
