export const InternalNoteResponse = {
  $id: 'InternalNoteResponse',
  type: 'object',
  required: ['note'],
  additionalProperties: false,
  properties: {
    note: {
      type: 'object',
      required: ['id', 'createdAt', 'visibility', 'author'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        createdAt: { type: 'string', format: 'date-time' },
        visibility: { type: 'string', const: 'internal' },
        author: {
          type: 'object',
          required: ['type', 'id', 'name'],
          additionalProperties: false,
          properties: {
            type: { type: 'string', enum: ['agent', 'system'] },
            id: { type: ['string', 'null'] },
            name: { type: 'string', maxLength: 256 },
          },
        },
      },
    },
  },
} as const;
