/** POST .../{collection}/{docId}/versions/current: create (201) or replace (200), no merge (spec endpoint 5, D5). */
import type { JsonObject } from '#shared/domain/documents/json-value';
import { badRequest } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { storableDocumentJson } from '#shared/http/storable-document';
import { isStorableDocId, MAX_SORT_KEY_BYTES } from '#shared/store/documents-store';
import { documentsStore } from '#shared/store/documents-table';

const documents = documentsStore();

export const handler = createApiHandler<JsonObject>('replaceCurrentDocument', async ({ tenantId, path, body }) => {
  if (!isStorableDocId(path.docId!)) throw badRequest(`'docId' is too long to store: at most ${MAX_SORT_KEY_BYTES} bytes of UTF-8.`);
  const json = storableDocumentJson(body);
  const { created } = await documents.replace(tenantId, path.collection!, path.docId!, json);
  return { status: created ? 201 : 200, rawBody: json };
});
