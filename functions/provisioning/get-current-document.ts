/** GET .../{collection}/{docId}/versions/current (spec endpoint 4, D5). */
import { notFound } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { requireStorableDocId } from '#shared/http/require-storable-doc-id';
import { documentsStore } from '#shared/store/documents-table';

const documents = documentsStore();

export const handler = createApiHandler('getCurrentDocument', async ({ tenantId, path }) => {
  const docId = requireStorableDocId(path.docId!);
  const json = await documents.get(tenantId, path.collection!, docId);
  if (json === undefined) throw notFound(`No document '${path.docId}' exists in collection '${path.collection}'.`);
  return { status: 200, bodyText: json };
});
