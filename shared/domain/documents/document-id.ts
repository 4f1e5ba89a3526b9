/**
 * A docId is 1-512 characters (checked by the path schema) and, stored as a DynamoDB sort
 * key, at most 1024 bytes of UTF-8: 512 four-byte characters would not fit.
 */
export const MAX_DOC_ID_BYTES = 1024;

const encoder = new TextEncoder();

export function isStorableDocId(docId: string): boolean {
  return encoder.encode(docId).length <= MAX_DOC_ID_BYTES;
}
