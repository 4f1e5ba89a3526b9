import { NOT_BLANK } from './identifiers.ts';

export const NOTE_BODY_MAX_CHARS = 20000;

export const AddInternalNoteBody = {
  $id: 'AddInternalNoteBody',
  type: 'object',
  required: ['body'],
  additionalProperties: false,
  properties: {
    body: {
      type: 'string',
      minLength: 1,
      maxLength: NOTE_BODY_MAX_CHARS,
      pattern: NOT_BLANK,
      description: 'Text of the note, 1 to 20000 characters (Unicode code points), not blank.',
    },
  },
} as const;
