/**
 * Internal notes on customer conversations. The area's entries of the route table (route-table.ts);
 * its operations' prose and examples are beside them, in conversations-docs.ts.
 */
import { IDEMPOTENCY_RECORDS, type RouteSpec } from './route-spec.ts';

/** The largest note body accepted, in raw UTF-8 bytes (413 above it). */
export const NOTE_BODY_MAX_BYTES = 32768;

/**
 * The conversations routes, in the order the OpenAPI document lists them.
 *
 * @example conversationsRoutes.map((route) => route.id) // ['addInternalNote']
 */
export const conversationsRoutes = [
  {
    id: 'addInternalNote',
    method: 'POST',
    path: '/api/v1/cxm/tenants/{tenantId}/conversations/{conversationId}/internal-notes',
    handler: 'functions/conversations/add-internal-note.ts',
    scope: 'cxm:conversations.write',
    tables: { conversations: { operations: ['ConditionCheckItem', 'PutItem'] }, idempotency: IDEMPOTENCY_RECORDS },
    schemas: {
      path: 'ConversationPath',
      query: 'NoQuery',
      body: 'AddInternalNoteBody',
      response: { status: 201, schema: 'InternalNoteResponse' },
    },
    maxBodyBytes: NOTE_BODY_MAX_BYTES,
    idempotencyKey: true,
    summary: 'Add an internal note to a customer conversation',
    errors: [400, 404, 409, 413, 422],
  },
] as const satisfies readonly RouteSpec[];
