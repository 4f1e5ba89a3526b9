import { tenantIdParam } from './identifiers.ts';

/** The path of routes addressed by tenant alone (MCP bots, reporting lists). */
export const TenantPath = {
  $id: 'TenantPath',
  type: 'object',
  required: ['tenantId'],
  additionalProperties: false,
  properties: { tenantId: tenantIdParam },
} as const;
