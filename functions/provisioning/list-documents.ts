/** GET /api/v1/provisioning/tenants/{tenantId}/{collection} (provisioning documents). */

import { badRequest } from '#shared/api/api-error';
import { decodeListCursor, encodeListCursor } from '#shared/domain/documents/list-cursor';
import { createApiHandler } from '#shared/http/create-api-handler';
import { nextLink, RESPONSE_BUDGET_BYTES } from '#shared/http/list-page';
import { DEFAULT_DOCUMENT_LIMIT } from '#shared/schemas/list-documents-query';
import { listDocuments } from '#shared/schemas/route-validators.generated';
import { documentsStore } from '#shared/store/function-stores';

const documents = documentsStore();

export const handler = createApiHandler(listDocuments, async ({ tenantId, path, query, http }) => {
  const limit = query.limit === undefined ? DEFAULT_DOCUMENT_LIMIT : Number(query.limit);
  const after = query.cursor === undefined ? undefined : decodeListCursor(query.cursor);
  if (query.cursor !== undefined && after === undefined) {
    throw badRequest(
      "Query parameter 'cursor' is not a cursor of this API; take it from the Link header of the previous page.",
    );
  }
  const page = await documents.list(tenantId, path.collection, { limit, after, maxBytes: RESPONSE_BUDGET_BYTES });
  const last = page.entries.at(-1);
  const link =
    page.more && last
      ? { Link: nextLink(http.selfUrl, { limit: query.limit, cursor: encodeListCursor(last.id) }) }
      : undefined;
  // Documents are stored as JSON text: splice them in rather than parse and serialise each.
  const bodyText = `[${page.entries.map((entry) => `{"id":${JSON.stringify(entry.id)},"data":${entry.json}}`).join(',')}]`;
  return { status: 200, bodyText, headers: link };
});
