/** Query of the provisioning list: `limit` 1-1000 written in digits, an opaque `cursor`. */
export const DOCUMENT_LIMIT = '^(?:[1-9][0-9]{0,2}|1000)$';
export const DEFAULT_DOCUMENT_LIMIT = 1000;
/** Most entries a page holds (`limit` at its largest). */
export const MAX_DOCUMENT_LIMIT = 1000;

export const ListDocumentsQuery = {
  $id: 'ListDocumentsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      maxLength: 16,
      pattern: DOCUMENT_LIMIT,
      description: 'Page size, 1 to 1000 (default 1000).',
    },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description: 'From the `Link: rel="next"` header of the previous page.',
    },
  },
} as const;
