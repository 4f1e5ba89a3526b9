/**
 * A docId is 1-512 characters (checked by the path schema) and, stored as a DynamoDB sort
 * key, at most 1024 bytes of UTF-8: 512 four-byte characters would not fit.
 */
export const MAX_DOC_ID_BYTES = 1024;

const encoder = new TextEncoder();

/** The most UTF-8 bytes one UTF-16 code unit takes (a surrogate pair's two take four). */
const MAX_BYTES_PER_UNIT = 3;

/**
 * Whether `docId` fits the sort key. An id short enough to fit at three bytes a code unit is not
 * encoded: that is every id a client is likely to send, and it spares each document request an
 * encoding (a lone surrogate, stored as U+FFFD, takes three bytes too).
 *
 * @example isStorableDocId('bot-7') // true
 * @example isStorableDocId('\u{1F600}'.repeat(300)) // false: 600 code units, 1200 bytes
 */
export function isStorableDocId(docId: string): boolean {
  if (docId.length * MAX_BYTES_PER_UNIT <= MAX_DOC_ID_BYTES) return true;
  return encoder.encode(docId).length <= MAX_DOC_ID_BYTES;
}
