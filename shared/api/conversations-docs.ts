/**
 * The conversations area's operations in the OpenAPI document: their prose and examples, what a reader
 * needs beyond their route entries (conversations-routes.ts) and the schemas. Every example must
 * validate against its schema (test/contract/openapi-examples.test.ts).
 */
import { NOTE_BODY_MAX_CHARS } from '#shared/schemas/add-internal-note-body';
import type { conversationsRoutes } from './conversations-routes.ts';
import { type AreaDocs, error, example } from './operation-doc.ts';

/**
 * The conversations area: its tag's description, and each operation's docs.
 *
 * @example conversationsDocs.operations.addInternalNote.description
 */
export const conversationsDocs: AreaDocs<(typeof conversationsRoutes)[number]['id']> = {
  description: 'Internal notes on customer conversations.',
  operations: {
    addInternalNote: {
      description:
        `Adds one text-only internal note (1 to ${NOTE_BODY_MAX_CHARS} characters, not blank) to a customer conversation. ` +
        'The note is never sent to the customer and is attributed to the API as a system author. ' +
        'The conversation must be a customer conversation, not closed, merged, locked or owned by a realtime session; ' +
        'these rules are checked atomically with the write.\n\n' +
        'A 201 means the note is committed; it does not mean internal notifications were delivered. ' +
        'Repeating the request creates another note, unless it carries the same `Idempotency-Key`: then it is answered with the ' +
        'first answer and creates nothing.',
      requestExamples: {
        note: example('A note', { body: 'Customer called back: the refund arrived, no further action needed.' }),
      },
      success: {
        201: {
          description: 'The note was committed.',
          examples: {
            created: example('The created note', {
              note: {
                id: '01KE3WZ8M7Q2X9D4C6B1N5R0TA',
                createdAt: '2026-01-15T09:30:12.345Z',
                visibility: 'internal',
                author: { type: 'system', id: null, name: 'API' },
              },
            }),
          },
        },
      },
      errorExamples: {
        400: {
          blank: example('A blank body', error('BadRequest', "'body' must not be blank.")),
          unknown: example(
            'An unknown property',
            error('BadRequest', "Unknown property 'visibility' in the request body."),
          ),
        },
        404: {
          absent: example(
            'No such customer conversation',
            error('NotFound', 'No customer conversation with this id is available in this tenant.'),
          ),
          assignee: example(
            'Inactive assignee',
            error('NotFound', "The conversation's assignee is not active in this tenant."),
          ),
        },
        409: {
          closed: example('Closed', error('Conflict', 'The conversation is closed.')),
          merged: example('Merged', error('Conflict', 'The conversation was merged into another conversation.')),
          locked: example('Locked', error('Conflict', 'The conversation is locked until 2026-01-15T10:00:00.000Z.')),
        },
      },
    },
  },
};
