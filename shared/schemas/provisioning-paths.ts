import { collectionParam, resourceIdParam, tenantIdParam } from './identifiers.ts';

export const CollectionPath = {
  $id: 'CollectionPath',
  type: 'object',
  required: ['tenantId', 'collection'],
  additionalProperties: false,
  properties: { tenantId: tenantIdParam, collection: collectionParam },
} as const;

export const DocumentPath = {
  $id: 'DocumentPath',
  type: 'object',
  required: ['tenantId', 'collection', 'docId'],
  additionalProperties: false,
  properties: { tenantId: tenantIdParam, collection: collectionParam, docId: resourceIdParam },
} as const;
