/** A provisioning document's history: a version's path, the versions list's query and its entries. */
import { MAX_VERSIONS_KEPT } from '#shared/domain/documents/document-versions';
import { collectionParam, pageTokenParam, resourceIdParam, tenantIdParam } from './identifiers.ts';

/** A version's number in a path: a whole number from 1, written in digits without leading zeros. */
export const VERSION_NUMBER = '^[1-9][0-9]{0,14}$';
/** The largest number VERSION_NUMBER writes: fifteen digits, within JSON's exact integers. */
export const MAX_VERSION_NUMBER = 999_999_999_999_999;
/** The versions list's page size, 1 to 100, written in digits. */
export const VERSION_LIMIT = '^(?:[1-9][0-9]?|100)$';
export const DEFAULT_VERSION_LIMIT = 100;
export const MAX_VERSION_LIMIT = 100;

export const DocumentVersionPath = {
  $id: 'DocumentVersionPath',
  type: 'object',
  required: ['tenantId', 'collection', 'docId', 'version'],
  additionalProperties: false,
  properties: {
    tenantId: tenantIdParam,
    collection: collectionParam,
    docId: resourceIdParam,
    version: {
      type: 'string',
      maxLength: 15,
      pattern: VERSION_NUMBER,
      description: "The version's number, as `Content-Location` and the versions list give it.",
    },
  },
} as const;

export const ListDocumentVersionsQuery = {
  $id: 'ListDocumentVersionsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      maxLength: 3,
      pattern: VERSION_LIMIT,
      description: `Page size, 1 to ${MAX_VERSION_LIMIT} (default ${DEFAULT_VERSION_LIMIT}).`,
    },
    cursor: pageTokenParam('From the `Link: rel="next"` header of the previous page.'),
  },
} as const;

export const DocumentVersionList = {
  $id: 'DocumentVersionList',
  type: 'array',
  maxItems: MAX_VERSION_LIMIT,
  description: `The versions kept, newest first (the stage keeps at most ${MAX_VERSIONS_KEPT} of a document).`,
  items: {
    type: 'object',
    required: ['version', 'createdAt', 'etag', 'bytes', 'change'],
    additionalProperties: false,
    properties: {
      version: {
        type: 'integer',
        format: 'int64',
        minimum: 1,
        maximum: MAX_VERSION_NUMBER,
        description: 'Its number: `versions/{version}` reads it.',
      },
      createdAt: {
        type: 'string',
        format: 'date-time',
        maxLength: 30,
        description: 'When the write that made it committed.',
      },
      etag: {
        type: 'string',
        maxLength: 64,
        pattern: '^"[^"]+"$',
        description: 'Its ETag, quoted as the `ETag` header gives it.',
      },
      bytes: {
        type: 'integer',
        format: 'int32',
        minimum: 2,
        maximum: 1048576,
        description: 'The size of its document, in bytes of compact UTF-8 JSON.',
      },
      change: {
        type: 'string',
        enum: ['created', 'replaced', 'merged', 'restored'],
        description: 'How it was made: by a POST, a POST over the document, a PUT (merge), or a restore.',
      },
      keyId: {
        type: 'string',
        maxLength: 12,
        pattern: '^[a-z0-9]{12}$',
        description:
          'The id of the API key that made it (never the key). Absent for a version an operator imported, and for the state a document had when versions began to be kept.',
      },
    },
  },
} as const;
