/** GET .../{collection}/{docId}/versions/current (spec endpoint 4, D5, D12). */
import { formatEntityTag, isNotModified } from '#shared/domain/documents/entity-tags';
import { notFound } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { readTagCondition } from '#shared/http/read-preconditions';
import { requireStorableDocId } from '#shared/http/require-storable-doc-id';
import { documentsStore } from '#shared/store/documents-table';

const documents = documentsStore();

export const handler = createApiHandler('getCurrentDocument', async ({ tenantId, path, http }) => {
  const docId = requireStorableDocId(path.docId!);
  const ifNoneMatch = readTagCondition(http.headers, 'If-None-Match');
  const document = await documents.read(tenantId, path.collection!, docId);
  if (document === undefined) throw notFound(`No document '${path.docId}' exists in collection '${path.collection}'.`);
  const headers = { ETag: formatEntityTag(document.etag) };
  if (isNotModified(document.etag, ifNoneMatch)) return { status: 304, bodyText: '', headers };
  return { status: 200, bodyText: document.json, headers };
});
