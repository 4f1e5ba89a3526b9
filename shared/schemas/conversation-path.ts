import { resourceIdParam, tenantIdParam } from './identifiers.ts';

export const ConversationPath = {
  $id: 'ConversationPath',
  type: 'object',
  required: ['tenantId', 'conversationId'],
  additionalProperties: false,
  properties: {
    tenantId: tenantIdParam,
    conversationId: resourceIdParam,
  },
} as const;
