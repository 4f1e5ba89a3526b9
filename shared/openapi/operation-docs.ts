/**
 * The docs of the OpenAPI document beyond the route table and the schemas: each area's
 * (shared/api/<area>-docs.ts), gathered here, and the path parameters every area shares.
 */

import { conversationsDocs } from '#shared/api/conversations-docs';
import { mcpDocs } from '#shared/api/mcp-docs';
import type { AreaDocs, OperationDocs } from '#shared/api/operation-doc';
import { provisioningDocs } from '#shared/api/provisioning-docs';
import { reportingDocs } from '#shared/api/reporting-docs';
import type { RouteId } from '#shared/api/route-table';
import { vocDocs } from '#shared/api/voc-docs';
import { webhooksDocs } from '#shared/api/webhooks-docs';

/** Each area's docs by its tag: the folder of its handlers (`functions/<area>/`). */
const AREAS = {
  conversations: conversationsDocs,
  provisioning: provisioningDocs,
  mcp: mcpDocs,
  reporting: reportingDocs,
  voc: vocDocs,
  webhooks: webhooksDocs,
} satisfies Record<string, AreaDocs<string>>;

/** The tags: one per area, with its description. */
export const areaDescriptions: Record<string, string> = Object.fromEntries(
  Object.entries(AREAS).map(([area, docs]) => [area, docs.description]),
);

/** Every operation's docs, by route id: an operation without docs does not compile. */
export const operationDocs: Record<RouteId, OperationDocs> = {
  ...conversationsDocs.operations,
  ...provisioningDocs.operations,
  ...mcpDocs.operations,
  ...reportingDocs.operations,
  ...vocDocs.operations,
  ...webhooksDocs.operations,
};

/** Path parameters are described here; query parameters by their schemas, which say more (ranges, defaults). */
export const parameterDocs: Record<string, { description?: string; example: string }> = {
  tenantId: {
    description: 'The tenant. The API key must hold exactly this tenant id, else 403.',
    example: 'acme',
  },
  conversationId: { description: 'The customer conversation.', example: 'conv-1002' },
  collection: { description: "A collection of the tenant, for example 'users', 'bots' or 'jobs'.", example: 'bots' },
  docId: { description: 'A document of the collection.', example: 'bot-billing' },
  jobId: { description: 'The VOC job execution identifier returned by the upload.', example: 'job-0001' },
  endpointId: { description: 'A webhook endpoint of the tenant.', example: 'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H' },
  version: { example: '3' },
  limit: { example: '100' },
  cursor: { example: 'eyJ2IjoxLCJhIjoiYm90LWJpbGxpbmcifQ' },
  range: { example: 'last_week' },
  from: { example: '2026-01-01T00:00:00Z' },
  to: { example: '1767830400000' },
};
