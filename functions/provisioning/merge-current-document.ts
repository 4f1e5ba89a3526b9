/** PUT .../{collection}/{docId}/versions/current: RFC 7396 merge into the existing document (spec endpoint 6, D5). */
import { applyMergePatch } from '#shared/domain/documents/apply-merge-patch';
import type { JsonObject } from '#shared/domain/documents/json-value';
import { notFound } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { requireStorableDocId } from '#shared/http/require-storable-doc-id';
import { storableDocumentJson } from '#shared/http/storable-document';
import { documentsStore } from '#shared/store/documents-table';

const documents = documentsStore();

export const handler = createApiHandler<JsonObject>('mergeCurrentDocument', async ({ tenantId, path, body, signal }) => {
  const docId = requireStorableDocId(path.docId!);
  const merged = await documents.update(
    tenantId,
    path.collection!,
    docId,
    // A patch object on an object document always merges to an object.
    (current) => storableDocumentJson(applyMergePatch(current, body) as JsonObject),
    signal,
  );
  if (merged === undefined) throw notFound(`No document '${path.docId}' exists in collection '${path.collection}'; create it with POST.`);
  return { status: 200, bodyText: merged };
});
