/** GET .../{collection}/{docId}/versions: the document's versions kept, newest first (provisioning documents, history). */

import { badRequest, notFound } from '#shared/api/api-error';
import { noSuchDocument } from '#shared/domain/documents/document-versions';
import { formatEntityTag } from '#shared/domain/documents/entity-tags';
import { decodeVersionsCursor, encodeVersionsCursor } from '#shared/domain/documents/list-cursor';
import { createApiHandler } from '#shared/http/create-api-handler';
import { requireStorableDocId } from '#shared/http/document-bounds';
import { nextLink } from '#shared/http/list-page';
import { DEFAULT_VERSION_LIMIT } from '#shared/schemas/document-version-schemas';
import { listDocumentVersions } from '#shared/schemas/route-validators.generated';
import { documentsStore } from '#shared/store/function-stores';

const documents = documentsStore();

export const handler = createApiHandler(listDocumentVersions, async ({ tenantId, path, query, http }) => {
  const docId = requireStorableDocId(path.docId);
  const limit = query.limit === undefined ? DEFAULT_VERSION_LIMIT : Number(query.limit);
  const before = query.cursor === undefined ? undefined : decodeVersionsCursor(query.cursor);
  if (query.cursor !== undefined && before === undefined) {
    throw badRequest(
      "Query parameter 'cursor' is not a cursor of this API; take it from the Link header of the previous page.",
    );
  }
  const page = await documents.listVersions(tenantId, path.collection, docId, { limit, before });
  if (page === undefined) throw notFound(noSuchDocument(path));
  const last = page.versions.at(-1);
  const headers =
    page.more && last
      ? { Link: nextLink(http.selfUrl, { limit: query.limit, cursor: encodeVersionsCursor(last.number) }) }
      : undefined;
  const body = page.versions.map(({ number, createdAt, etag, bytes, change, keyId }) => ({
    version: number,
    createdAt,
    etag: formatEntityTag(etag),
    bytes,
    change,
    ...(keyId !== undefined && { keyId }),
  }));
  return { status: 200, body, headers };
});
