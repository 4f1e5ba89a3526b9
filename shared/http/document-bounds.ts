/**
 * The bounds a document request must keep, as the answers a client gets: a docId no document can
 * have is 400 on every document route alike (not 404 on some), and a document whose compact JSON
 * passes the stored-document bound is 413 (a merge can grow a document past it).
 */
import { badRequest, payloadTooLarge } from '#shared/api/api-error';
import { isStorableDocId, MAX_DOC_ID_BYTES } from '#shared/domain/documents/document-id';
import { DOCUMENT_MAX_BYTES, jsonBytes } from '#shared/domain/documents/document-size';
import type { JsonObject } from '#shared/domain/documents/json-value';

/**
 * The docId, or the 400 a client gets.
 *
 * @example const docId = requireStorableDocId(path.docId);
 */
export function requireStorableDocId(docId: string): string {
  if (!isStorableDocId(docId))
    throw badRequest(`'docId' is too long to store: at most ${MAX_DOC_ID_BYTES} bytes of UTF-8.`);
  return docId;
}

/**
 * The JSON to store, or the 413 a client gets.
 *
 * @example
 * const json = documentJsonOr413(body); // throws ApiError 413 past DOCUMENT_MAX_BYTES
 */
export function documentJsonOr413(document: JsonObject): string {
  const json = JSON.stringify(document);
  if (jsonBytes(json) > DOCUMENT_MAX_BYTES) throw payloadTooLarge(DOCUMENT_MAX_BYTES, 'The document, as compact JSON,');
  return json;
}
