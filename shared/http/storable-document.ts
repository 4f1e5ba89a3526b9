/** A document as the JSON text to store, or 413 when it passes the stored-document bound. */
import { DOCUMENT_MAX_BYTES, jsonBytes } from '#shared/domain/documents/document-size';
import type { JsonObject } from '#shared/domain/documents/json-value';
import { payloadTooLarge } from './api-error.ts';

export function storableDocumentJson(document: JsonObject): string {
  const json = JSON.stringify(document);
  if (jsonBytes(json) > DOCUMENT_MAX_BYTES) throw payloadTooLarge(DOCUMENT_MAX_BYTES, 'The document, as compact JSON,');
  return json;
}
