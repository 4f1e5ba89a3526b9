/**
 * Path identifier rules (functions/README.md, identifiers and the order of checks). Lengths count
 * Unicode code points (ajv's default), and the pattern refuses separators that survive
 * URL-decoding, so `a%2Fb` can never address another resource.
 */
export const NO_SEPARATORS = '^[^/\\\\]*$';
/** A string with at least one non-white-space character. */
export const NOT_BLANK = '\\S';

export const tenantIdParam = { type: 'string', minLength: 1, maxLength: 128, pattern: NO_SEPARATORS } as const;
export const resourceIdParam = { type: 'string', minLength: 1, maxLength: 512, pattern: NO_SEPARATORS } as const;

/** Collection names: letters, digits, '.', '_' and '-', starting with a letter or digit. */
export const COLLECTION_NAME = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
export const collectionParam = { type: 'string', maxLength: 64, pattern: COLLECTION_NAME } as const;

/**
 * An opaque page token of a list that pages by an item's key (a document's versions, an endpoint's
 * deliveries): base64url, as the store writes it.
 *
 * @example cursor: pageTokenParam("The previous page's `cursor`.")
 */
export const pageTokenParam = (description: string) =>
  ({ type: 'string', minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', description }) as const;
