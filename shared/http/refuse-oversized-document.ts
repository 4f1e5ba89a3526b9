/**
 * A document as the compact JSON text to store; throws 413 `PayloadTooLarge` when that text passes
 * the stored-document bound (a merge can grow a document past it).
 */

import { payloadTooLarge } from '#shared/api/api-error';
import { DOCUMENT_MAX_BYTES, jsonBytes } from '#shared/domain/documents/document-size';
import type { JsonObject } from '#shared/domain/documents/json-value';

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
