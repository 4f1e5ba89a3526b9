import { tenantIdParam } from './identifiers.ts';

export const McpPath = {
  $id: 'McpPath',
  type: 'object',
  required: ['tenantId'],
  additionalProperties: false,
  properties: { tenantId: tenantIdParam },
} as const;
