/** POST .../{collection}/{docId}/versions/current: create (201) or replace (200), no merge (spec endpoint 5, D5). */
import type { JsonObject } from '#shared/domain/documents/json-value';
import { createApiHandler } from '#shared/http/create-api-handler';
import { requireStorableDocId } from '#shared/http/require-storable-doc-id';
import { storableDocumentJson } from '#shared/http/storable-document';
import { documentsStore } from '#shared/store/documents-table';

const documents = documentsStore();

export const handler = createApiHandler<JsonObject>('replaceCurrentDocument', async ({ tenantId, path, body, signal }) => {
  const docId = requireStorableDocId(path.docId!);
  const json = storableDocumentJson(body);
  const { created } = await documents.replace(tenantId, path.collection!, docId, json, signal);
  return { status: created ? 201 : 200, bodyText: json };
});
