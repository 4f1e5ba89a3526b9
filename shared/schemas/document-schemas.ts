/** Provisioning documents are arbitrary JSON objects; only their shape as an object is checked. */
import { MAX_DOCUMENT_LIMIT } from './list-documents-query.ts';

export const DocumentBody = {
  $id: 'DocumentBody',
  type: 'object',
  description: 'An arbitrary JSON object, at most 350 KB as compact JSON.',
} as const;

export const DocumentList = {
  $id: 'DocumentList',
  type: 'array',
  maxItems: MAX_DOCUMENT_LIMIT,
  items: {
    type: 'object',
    required: ['id', 'data'],
    additionalProperties: false,
    properties: { id: { type: 'string' }, data: { type: 'object' } },
  },
} as const;
