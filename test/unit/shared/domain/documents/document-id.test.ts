/**
 * The docId's store bound in bytes of UTF-8, at the edges where counting code units and counting
 * bytes part: three-byte characters, surrogate pairs and lone surrogates.
 */
import { describe, expect, it } from 'vitest';
import { isStorableDocId, MAX_DOC_ID_BYTES } from '#shared/domain/documents/document-id';

describe('isStorableDocId', () => {
  it.each([
    ['1024 one-byte characters', 'a'.repeat(1024), true],
    ['1025 one-byte characters', 'a'.repeat(1025), false],
    ['341 three-byte characters (1023 bytes)', '\u20ac'.repeat(341), true],
    ['342 three-byte characters (1026 bytes)', '\u20ac'.repeat(342), false],
    ['256 surrogate pairs (1024 bytes)', '\u{1F600}'.repeat(256), true],
    ['257 surrogate pairs (1028 bytes)', '\u{1F600}'.repeat(257), false],
    ['342 lone surrogates, stored as U+FFFD (1026 bytes)', '\uD800'.repeat(342), false],
    ['one three-byte character after 1021 one-byte ones (1024 bytes)', `${'a'.repeat(1021)}\u20ac`, true],
    ['one three-byte character after 1022 one-byte ones (1025 bytes)', `${'a'.repeat(1022)}\u20ac`, false],
  ])('%s', (_label, docId, storable) => {
    expect(isStorableDocId(docId)).toBe(storable);
    expect(Buffer.byteLength(docId) <= MAX_DOC_ID_BYTES).toBe(storable);
  });
});
