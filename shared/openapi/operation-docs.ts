/**
 * The prose and examples of the OpenAPI document: what a reader needs beyond the route table and
 * the schemas. Paths, methods, scopes, limits and schemas are never repeated here; they come from
 * shared/routes.ts and shared/schemas. Every example must validate against its schema
 * (test/contract/openapi-examples.test.ts), so the values follow the schemas and the decisions
 * of functions/README.md (epoch ms, ISO 8601, identifiers).
 */
import { DOCUMENT_MAX_BYTES } from '#shared/domain/documents/document-size';
import {
  DEFAULT_VERSION_RETENTION,
  daysToMs,
  goneReason,
  missingReason,
} from '#shared/domain/documents/document-versions';
import {
  MAX_RECOVERED_DELIVERIES,
  RECOVER_GROUP_SIZE,
  RECOVER_INTERVAL_MS,
  RECOVER_READ_LIMIT,
} from '#shared/domain/webhooks/recover-limits';
import type { WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import {
  type ApiError,
  gone,
  notFound,
  payloadTooLarge,
  preconditionFailed,
  subscriptionDenied,
  unavailable,
} from '#shared/http/api-error';
import type { RouteId } from '#shared/routes';
import { NOTE_BODY_MAX_CHARS } from '#shared/schemas/add-internal-note-body';
import type { SchemaId } from '#shared/schemas/schema-ids';
import type { ExampleObject } from './openapi-types.ts';

/** Response headers a success may carry beyond X-Request-Id (components/headers). */
export type SuccessHeader = 'Link' | 'ETag' | 'Content-Location' | 'Cache-Control';

export interface SuccessDocs {
  description: string;
  headers?: SuccessHeader[];
  /** The status answers without a body (MCP's 202 to a notification). */
  empty?: true;
  examples?: Record<string, ExampleObject>;
}

export interface OperationDocs {
  /** Behaviour a caller must know; scope, limits and statuses are added from the route table. */
  description: string;
  requestExamples?: Record<string, ExampleObject>;
  /** One entry per success status of the route. */
  success: Record<number, SuccessDocs>;
  /** Examples of the route's own error statuses (its `errors`); gateway errors have shared ones. */
  errorExamples: Partial<Record<number, Record<string, ExampleObject>>>;
}

/** The tags: one per area, the folder of the route's handler (`functions/<area>/`). */
export const areaDescriptions: Record<string, string> = {
  conversations: 'Internal notes on customer conversations.',
  mcp: 'The MCP server for bots: Streamable HTTP, stateless, JSON-RPC 2.0.',
  provisioning:
    "Tenant-scoped collections of arbitrary JSON documents, each with a 'current' version and the numbered versions kept before it.",
  reporting:
    'Cursor-paginated reporting rows of assistant and VOC conversations, without message or transcript content.',
  voc: 'Voice-of-customer recording jobs.',
  webhooks:
    "Where the tenant's events are delivered: endpoints, their signing secrets (Standard Webhooks), their deliveries.",
};

/** Path parameters are described here; query parameters by their schemas, which say more (ranges, defaults). */
export const parameterDocs: Record<string, { description?: string; example: string }> = {
  tenantId: {
    description: 'The tenant. The API key must hold exactly this tenant id, else 403.',
    example: 'acme',
  },
  conversationId: { description: 'The customer conversation.', example: 'conv-1002' },
  collection: { description: "A collection of the tenant, for example 'users', 'bots' or 'jobs'.", example: 'bots' },
  docId: { description: 'A document of the collection.', example: 'bot-billing' },
  jobId: { description: 'The VOC job execution identifier returned by the upload.', example: 'job-0001' },
  endpointId: { description: 'A webhook endpoint of the tenant.', example: 'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H' },
  version: { example: '3' },
  limit: { example: '100' },
  cursor: { example: 'eyJ2IjoxLCJhIjoiYm90LWJpbGxpbmcifQ' },
  range: { example: 'last_week' },
  from: { example: '2026-01-01T00:00:00Z' },
  to: { example: '1767830400000' },
};

const error = (code: string, message: string) => ({ code, message });
/** The body the chain sends for an ApiError, so the example says exactly what the code says. */
const errorOf = (apiError: ApiError) => error(apiError.code, apiError.message);
const example = (summary: string, value: unknown): ExampleObject => ({ summary, value });
/** What every recover's answer states of its limits. */
const recoverLimits = {
  read: RECOVER_READ_LIMIT,
  recovered: MAX_RECOVERED_DELIVERIES,
  intervalSeconds: RECOVER_INTERVAL_MS / 1000,
};

const billingBot = {
  name: 'Billing helper',
  language: 'en',
  channels: ['chat', 'email'],
  escalation: { queue: 'billing', afterMinutes: 5 },
};

const assistantRow = {
  ID: 'asst-000184',
  TenantID: 'acme',
  BotID: 'bot-billing',
  BotName: 'Billing helper',
  Datetime: 1767258000000,
  EndDatetime: 1767258252000,
  DatetimeUTC: '2026-01-01T09:00:00.000Z',
  EndDatetimeUTC: '2026-01-01T09:04:12.000Z',
  Duration: 252,
  Escalated: true,
  escalatedAt: 1767258190000,
  CSat: 4,
  AgentName: 'Ada Agent',
  AgentId: 'agent-1',
  AgentEmail: 'ada@example.com',
  Category: 'Billing',
  Subcategory: 'Invoices',
  Tertiary: 'Duplicate charge',
  RemoteIp: '203.0.113.24',
  userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15',
  Referrer: 'https://shop.example.com/account/invoices',
  Media: 'chat',
  Summary: 'Customer was charged twice for the December invoice; handed over to billing.',
  'Handoff Reason': 'Refund needs an agent',
  ticketId: 'T-48213',
  ticketUrl: 'https://support.example.com/tickets/48213',
  ticketKind: 'refund',
  Input: 'web-widget',
  'Contact Name': 'Grace Hopper',
  'Contact Email': 'grace@example.org',
  'Contact Phone': null,
};

const vocRow = {
  ID: 'voc-000731',
  TenantID: 'acme',
  Datetime: '2026-01-01T10:15:00+01:00',
  DatetimeUTC: '2026-01-01T09:15:00.000Z',
  Duration: 384,
  Direction: 'inbound',
  Media: 'voice',
  AgentName: 'Bob Backup',
  AgentId: 'agent-2',
  AgentEmail: 'bob@example.com',
  CustomerName: 'Grace Hopper',
  CustomerId: 'cust-5521',
  CustomerEmail: 'grace@example.org',
  Groups: 'Billing',
  Tags: 'refund,priority',
  Category: 'Billing',
  Subcategory: 'Refunds',
  Tertiary: null,
  CategoryExplanation: 'The caller asks for a refund of a duplicate charge.',
  CategoriesId: 'cat-billing-refunds',
  Summary: 'Caller reports a duplicate charge; the agent starts a refund.',
  CSat: 5,
  CSatExplanation: 'The caller thanks the agent and confirms the issue is solved.',
  Sentiment: 0.62,
  SentimentExplanation: 'Frustrated at first, satisfied at the end.',
  Problems: [{ problem: 'Duplicate charge', severity: 'high' }],
  KPIs: [{ name: 'First contact resolution', value: true }],
  SourceSystem: 'cloud-pbx',
  TicketId: 'T-48213',
  TicketUrl: 'https://support.example.com/tickets/48213',
};

const NEXT_CURSOR =
  'eyJ2IjoxLCJrIjoiYXNzaXN0YW50IiwidCI6ImFjbWUiLCJ3IjpbMTc2NzIyNTYwMDAwMCwxNzY3MzEyMDAwMDAwXX0.3q2UuYtOGRYw0mFh9N5oZ1c7Xk2lB8sJdVfPaQeHr4E';

const reportBadRequests = {
  combined: example(
    "'range' with 'from'",
    error(
      'BadRequest',
      "Query parameters 'range' and 'from' cannot be combined: give a range, or a from (and optionally a to).",
    ),
  ),
  cursor: example(
    'A cursor with a window',
    error('BadRequest', "Query parameter 'cursor' cannot be combined with 'from': the cursor carries its window."),
  ),
};

const reportUnavailable = {
  unavailable: example('The reporting backend failed', errorOf(unavailable(1))),
};

const documentTooLarge = {
  stored: example(
    'The stored document would pass 350 KB',
    errorOf(payloadTooLarge(DOCUMENT_MAX_BYTES, 'The document, as compact JSON,')),
  ),
};

const documentErrors = {
  notObject: example('Not a JSON object', error('BadRequest', 'The request body must be a JSON object.')),
  collection: example(
    'Malformed collection',
    error(
      'BadRequest',
      "'collection' must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
    ),
  ),
  preconditionFailed: example('The document changed since it was read', errorOf(preconditionFailed('bot-billing'))),
};

/** The retention a stage keeps unless its operators say otherwise, as the descriptions state it. */
const RETENTION_NOTE =
  `the last ${DEFAULT_VERSION_RETENTION.keep} versions of each document, each for ` +
  `${DEFAULT_VERSION_RETENTION.maxAgeMs / daysToMs(1)} days after it was made, unless its operators set otherwise`;

/** What a version number can name instead of a version. */
const versionErrors = {
  version: example(
    'Not a version number',
    error('BadRequest', "'version' must be a version number: a whole number from 1, without leading zeros."),
  ),
  absent: example(
    'No such document',
    errorOf(notFound(missingReason({ collection: 'bots', docId: 'bot-sales' }, 3, undefined))),
  ),
  notYet: example(
    'A number past the newest version',
    errorOf(notFound(missingReason({ collection: 'bots', docId: 'bot-billing' }, 9, 4))),
  ),
  gone: example('A version the retention removed', errorOf(gone(goneReason(3, DEFAULT_VERSION_RETENTION)))),
};

const webhookEndpoint = {
  id: 'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H',
  url: 'https://hooks.acme.example/cxm',
  events: ['note.created', 'voc.job.completed', 'voc.job.failed'],
  description: 'Support tooling',
  status: 'enabled',
  createdAt: '2026-01-01T09:00:00.000Z',
  updatedAt: '2026-01-01T09:00:00.000Z',
};

const noEndpoint = {
  absent: example(
    'No such endpoint',
    error('NotFound', "No webhook endpoint 'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H' exists in this tenant."),
  ),
};

const refusedUrl = {
  private: example(
    'A URL a delivery may not reach',
    error('BadRequest', "Field 'url' cannot receive webhooks: 10.0.0.7 is not a public address."),
  ),
  http: example('Not https', error('BadRequest', "Field 'url' cannot receive webhooks: a webhook URL is https.")),
};

/** The refusal of an event whose data the key may not read. */
const unreadableEvent = {
  voc: example(
    'An event the key may not read',
    errorOf(subscriptionDenied('voc.job.completed', 'voc:recordings.read')),
  ),
  documents: example(
    'Document events, and the key reads no collection',
    errorOf(subscriptionDenied('provisioning.document.changed', 'provisioning:{collection}.read')),
  ),
};

const WEBHOOK_SUBSCRIBING =
  'The key must hold the read scope of what each event carries, else 403 naming the event and the scope: `note.created` ' +
  "the note route's `cxm:conversations.write` (the event carries what its 201 answered), `voc.job.completed` and " +
  '`voc.job.failed` `voc:recordings.read`, `provisioning.document.changed` `provisioning:{collection}.read` of one ' +
  'collection at least. Document events then reach the endpoint for the collections the key reads, which its ' +
  '`collections` lists; a key of `provisioning:read` or `provisioning:*` leaves it out: every collection.';

const WEBHOOK_RECEIVING =
  'Deliveries follow Standard Webhooks 1.0: a POST of `{"type", "timestamp", "data"}` with the headers `webhook-id`, ' +
  '`webhook-timestamp` and `webhook-signature`; the API guide shows how a receiver verifies them.';

export const operationDocs: Record<RouteId, OperationDocs> = {
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

  listDocuments: {
    description:
      'Lists the documents of a collection as `{id, data}` entries ordered by id, at most `limit` per page. ' +
      'When more remain, the response carries a `Link` header (RFC 8288) with `rel="next"`; follow it as it is. ' +
      'A page may hold fewer entries than `limit` when it would pass the response size bound.',
    success: {
      200: {
        description: 'One page of the collection; `Link` names the next one when more remain.',
        headers: ['Link'],
        examples: {
          page: example('A page of two bots', [
            { id: 'bot-billing', data: billingBot },
            { id: 'bot-returns', data: { name: 'Returns assistant', language: 'de', channels: ['chat'] } },
          ]),
          empty: example('An empty collection', []),
        },
      },
    },
    errorExamples: {
      400: {
        limit: example(
          'Bad limit',
          error('BadRequest', "Query parameter 'limit' must be a whole number from 1 to 1000."),
        ),
        collection: documentErrors.collection,
      },
    },
  },

  getCurrentDocument: {
    description:
      "Reads the document's current version: the JSON object exactly as it was stored, with its `ETag` and " +
      '`Content-Location`, the URL of this version by its number (`versions/{n}`), which keeps naming it after later writes. ' +
      'With `If-None-Match` naming that ETag (or `*`), the answer is 304 without a body: your copy is current. ' +
      '`If-Match` makes the read fail with 412 unless the document is still at one of the named ETags.',
    success: {
      200: {
        description: 'The document.',
        headers: ['ETag', 'Content-Location'],
        examples: { bot: example('A bot', billingBot) },
      },
      304: {
        description: "Not modified: `If-None-Match` names the document's current ETag. No body.",
        headers: ['ETag', 'Content-Location'],
        empty: true,
      },
    },
    errorExamples: {
      400: { collection: documentErrors.collection },
      404: {
        absent: example('No such document', error('NotFound', "No document 'bot-sales' exists in collection 'bots'.")),
      },
      412: { changed: documentErrors.preconditionFailed },
    },
  },

  replaceCurrentDocument: {
    description:
      "Creates the document's current version (201), or replaces it as a whole (200): no merge. " +
      'The stored document is at most 350 KB as compact JSON (else 413). Answers the stored document, its new `ETag` and ' +
      "`Content-Location` (the new version's own URL, `versions/{n}`). " +
      '`If-Match: <ETag>` replaces only that version and `If-None-Match: *` only creates (else 412, nothing written).',
    requestExamples: { bot: example('A bot', billingBot) },
    success: {
      201: {
        description: 'The document was created.',
        headers: ['ETag', 'Content-Location'],
        examples: { bot: example('The stored bot', billingBot) },
      },
      200: {
        description: 'The document was replaced.',
        headers: ['ETag', 'Content-Location'],
        examples: { bot: example('The stored bot', billingBot) },
      },
    },
    errorExamples: {
      400: { notObject: documentErrors.notObject, collection: documentErrors.collection },
      412: { changed: documentErrors.preconditionFailed },
      413: documentTooLarge,
    },
  },

  mergeCurrentDocument: {
    description:
      "Applies a JSON Merge Patch (RFC 7396) to the document's current version: objects merge recursively, " +
      '`null` deletes a member, arrays replace. Concurrent merges never lose an update. Answers the merged document, its new ' +
      "`ETag` and `Content-Location` (the new version's own URL, `versions/{n}`). `If-Match: <ETag>` merges only into that " +
      'version (else 412, nothing written).',
    requestExamples: {
      patch: example('Change the queue, drop the language', { escalation: { queue: 'billing-eu' }, language: null }),
    },
    success: {
      200: {
        description: 'The merged document.',
        headers: ['ETag', 'Content-Location'],
        examples: {
          merged: example('The merged bot', {
            name: 'Billing helper',
            channels: ['chat', 'email'],
            escalation: { queue: 'billing-eu', afterMinutes: 5 },
          }),
        },
      },
    },
    errorExamples: {
      400: { notObject: documentErrors.notObject },
      404: {
        absent: example(
          'No such document',
          error('NotFound', "No document 'bot-sales' exists in collection 'bots'; create it with POST."),
        ),
      },
      412: { changed: documentErrors.preconditionFailed },
      413: documentTooLarge,
    },
  },

  listDocumentVersions: {
    description:
      "Lists the document's versions the stage keeps, newest first, the current one included: each one's `version` number " +
      '(1, 2, 3... per document, without gaps), `createdAt`, `etag` (quoted, as the `ETag` header gives it), `bytes`, `change` ' +
      '(`created`, `replaced`, `merged` or `restored`) and the `keyId` of the API key that made it (never the key; absent for ' +
      "an operator's import and for the state a document had when versions began to be kept). The stage keeps " +
      `${RETENTION_NOTE}. At most \`limit\` per page; when more remain, the response carries a \`Link\` header ` +
      '(RFC 8288) with `rel="next"`; follow it as it is. The list is read from an index that may trail a write by a ' +
      'moment: a version made an instant ago can be missing below the current one, which is always listed.',
    success: {
      200: {
        description: 'One page of the versions kept, newest first; `Link` names the next one when more remain.',
        headers: ['Link'],
        examples: {
          page: example('A restore, a merge and the state before versions were kept', [
            {
              version: 3,
              createdAt: '2026-01-03T08:00:00.000Z',
              etag: '"Qm7Lr2Xv9Tb4Nc8W"',
              bytes: 119,
              change: 'restored',
              keyId: 'k7q2m9x4w1z8',
            },
            {
              version: 2,
              createdAt: '2026-01-02T09:30:00.000Z',
              etag: '"k3Jv0cQ9Tz2Wm8Ld"',
              bytes: 106,
              change: 'merged',
              keyId: 'k7q2m9x4w1z8',
            },
            {
              version: 1,
              createdAt: '2026-01-01T09:00:00.000Z',
              etag: '"Hc5Yp1Rw8Ks3Vd0F"',
              bytes: 119,
              change: 'created',
            },
          ]),
        },
      },
    },
    errorExamples: {
      400: {
        limit: example(
          'Bad limit',
          error('BadRequest', "Query parameter 'limit' must be a whole number from 1 to 100."),
        ),
        cursor: example(
          'Not a cursor of this list',
          error(
            'BadRequest',
            "Query parameter 'cursor' is not a cursor of this API; take it from the Link header of the previous page.",
          ),
        ),
      },
      404: { absent: versionErrors.absent },
    },
  },

  getDocumentVersion: {
    description:
      'Reads one version of the document by its number: the JSON object exactly as that write stored it, with its `ETag` and ' +
      '`Content-Location` (this URL). A version never changes, so the answer carries `Cache-Control: private, ' +
      'max-age=31536000, immutable` rather than `no-store`: keep it as long as you like. With `If-None-Match` naming its ETag ' +
      '(or `*`), the answer is 304 without a body; `If-Match` makes the read fail with 412 unless the version has one of the ' +
      'named ETags.\n\n' +
      'A number past the newest version is 404, and so is a document that does not exist. A version the retention removed ' +
      `is 410 (code \`NotFound\`): gone for good. The stage keeps ${RETENTION_NOTE}; the current ` +
      'version is always readable. `versions/current` is a route of its own, not a number.',
    success: {
      200: {
        description: "The version's document; `Content-Location` is its own URL.",
        headers: ['ETag', 'Content-Location', 'Cache-Control'],
        examples: { bot: example('Version 1 of a bot', billingBot) },
      },
      304: {
        description: "Not modified: `If-None-Match` names the version's ETag. No body.",
        headers: ['ETag', 'Content-Location', 'Cache-Control'],
        empty: true,
      },
    },
    errorExamples: {
      400: { version: versionErrors.version },
      404: { absent: versionErrors.absent, notYet: versionErrors.notYet },
      410: { gone: versionErrors.gone },
      412: { changed: documentErrors.preconditionFailed },
    },
  },

  restoreDocumentVersion: {
    description:
      "Makes version `version` the document's current content again: a new version (the next number, `change: restored`) " +
      "holding exactly that version's document, written as any write is. No body. Answers 200 with the document, its new " +
      "`ETag` and `Content-Location` (the new version's URL), and the tenant's webhooks hear " +
      '`provisioning.document.changed` with `change: restored`.\n\n' +
      "`If-Match` names the document's current ETag: the restore happens only over that version (else 412, nothing " +
      'written). With the same `Idempotency-Key`, a retry answers the first answer and restores nothing more. A number past ' +
      'the newest version, or no document, is 404; a version the retention removed is 410 (code `NotFound`).',
    success: {
      200: {
        description: "The document as restored; `Content-Location` is the new version's URL.",
        headers: ['ETag', 'Content-Location'],
        examples: { bot: example('The restored bot', billingBot) },
      },
    },
    errorExamples: {
      400: { version: versionErrors.version },
      404: { absent: versionErrors.absent, notYet: versionErrors.notYet },
      410: { gone: versionErrors.gone },
      412: { changed: documentErrors.preconditionFailed },
    },
  },

  mcpBots: {
    description:
      'A stateless MCP server (Streamable HTTP, JSON-RPC 2.0) for both protocol eras, chosen by each request: 2026-07-28, whose ' +
      'requests carry their protocol version and client capabilities in `params._meta` (with `MCP-Protocol-Version`, `Mcp-Method` ' +
      'and, for `tools/call`, `Mcp-Name` headers that must agree with the body), and 2025-11-25 or 2025-06-18, which open with ' +
      '`initialize`. No session either way; send `Accept: application/json, text/event-stream` (or `application/json`); the answer ' +
      'is always JSON.\n\n' +
      "Tools: `list_bots` (argument `limit`, an integer 1 to 100, default 20) returns the tenant's `bots` collection ordered by id as " +
      '`structuredContent: {bots: [{id, ...data}]}`; `get_bot` (argument `id`) returns one bot as `structuredContent: {bot: {id, ...data}}`, ' +
      'or a tool error (`isError: true`) naming an id that has no bot. Each result also carries the same JSON as a text block. ' +
      'JSON-RPC ids are echoed with their exact type. A notification (no `id`) is answered 202 without a body. ' +
      'Faults answer 500 with only a `message`.\n\n' +
      '2026-07-28 answers: `server/discover`; `resultType` on every result; `ttlMs` (600000) and `cacheScope: private` on ' +
      '`tools/list` and `server/discover`; 400 with JSON-RPC -32020 when a header disagrees with the body, -32022 (with the supported ' +
      'versions) for a version it does not serve; 404 with -32601 for a method it does not serve (`subscriptions/listen` among them: ' +
      'it sends no notifications).\n\n' +
      'A request with an `Origin` header is refused 403 unless the stage allows that origin (DNS-rebinding protection, ' +
      'as the MCP transport requires); server-side callers send no Origin. The tool list never changes: `tools.listChanged` is false.',
    requestExamples: {
      callListBots: example('Call list_bots', {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_bots', arguments: { limit: 2 } },
      }),
      listTools: example('List the tools', { jsonrpc: '2.0', id: 'tools-1', method: 'tools/list' }),
      getBotModern: example(
        'Call get_bot in 2026-07-28 (headers MCP-Protocol-Version, Mcp-Method: tools/call, Mcp-Name: get_bot)',
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: {
            name: 'get_bot',
            arguments: { id: 'bot-billing' },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        },
      ),
      notification: example('A notification', { jsonrpc: '2.0', method: 'notifications/initialized' }),
    },
    success: {
      200: {
        description: 'The JSON-RPC response: a `result`, or a JSON-RPC `error` (an unknown method, for example).',
        examples: {
          bots: example('list_bots result', {
            jsonrpc: '2.0',
            id: 1,
            result: {
              content: [
                {
                  type: 'text',
                  text: '{"bots":[{"id":"bot-billing","name":"Billing helper"},{"id":"bot-returns","name":"Returns assistant"}]}',
                },
              ],
              structuredContent: {
                bots: [
                  { id: 'bot-billing', name: 'Billing helper' },
                  { id: 'bot-returns', name: 'Returns assistant' },
                ],
              },
            },
          }),
          unknownMethod: example('Unknown method', {
            jsonrpc: '2.0',
            id: 'm-7',
            error: { code: -32601, message: 'Method not found' },
          }),
        },
      },
      202: { description: 'A notification was accepted; no body.', empty: true },
    },
    errorExamples: {
      400: {
        headerMismatch: example('2026-07-28: the Mcp-Method header disagrees with the body', {
          jsonrpc: '2.0',
          id: 2,
          error: {
            code: -32020,
            message:
              'Bad Request: the request headers and body disagree: the body names method tools/call but the Mcp-Method header names tools/list',
          },
          code: 'BadRequest',
          message:
            'Bad Request: the request headers and body disagree: the body names method tools/call but the Mcp-Method header names tools/list',
        }),
        parse: example('Malformed JSON', {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: 'Parse error: Invalid JSON' },
          code: 'BadRequest',
          message: 'Parse error: Invalid JSON',
        }),
        path: example('A refused path', error('BadRequest', "'tenantId' must not contain '/' or '\\'.")),
      },
      404: {
        methodNotFound: example('A 2026-07-28 request for a method this server does not serve', {
          jsonrpc: '2.0',
          id: 4,
          error: { code: -32601, message: 'Method not found' },
          code: 'NotFound',
          message: 'Method not found',
        }),
      },
      405: {
        notAllowed: example('Not POST', {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed: this stateless MCP endpoint takes POST only.' },
          id: null,
        }),
      },
    },
  },

  listAssistantConversations: {
    description:
      'Assistant conversation rows of a window, ordered by `Datetime` then `ID`. The window is `[from, to)` when `from` is given, ' +
      'else `range` (default `last_day`) ending at `to` (default now). `from`/`to` are ISO 8601 with a zone, or epoch milliseconds.\n\n' +
      '`total` counts the rows of the whole window and stays fixed across pages. When more rows remain, `cursor.next` continues the list: ' +
      'send it alone (with `limit` at most), never with `range`, `from` or `to`. Cursors last 24 hours. On the last page `cursor` is `{}`.\n\n' +
      'Units: `Datetime`, `EndDatetime` and `escalatedAt` in epoch ms, `Duration` in seconds. Every row carries every field; unknown values are `null`.',
    success: {
      200: {
        description: 'One page of rows.',
        examples: {
          page: example('A page with more to come', {
            total: 1873,
            cursor: { next: NEXT_CURSOR },
            data: [assistantRow],
          }),
          last: example('The last page', { total: 1, cursor: {}, data: [assistantRow] }),
        },
      },
    },
    errorExamples: { 400: reportBadRequests, 503: reportUnavailable },
  },

  listVocConversations: {
    description:
      'VOC conversation rows of a window; query parameters, ordering, paging and errors are those of the assistant list.\n\n' +
      "Units: `Datetime` in ISO 8601 with the tenant's offset, `DatetimeUTC` in UTC (`Z`), `Duration` in seconds. " +
      'Every row carries every field; unknown values are `null`. No transcript content.',
    success: {
      200: {
        description: 'One page of rows.',
        examples: {
          page: example('A page with more to come', { total: 2412, cursor: { next: NEXT_CURSOR }, data: [vocRow] }),
        },
      },
    },
    errorExamples: { 400: reportBadRequests, 503: reportUnavailable },
  },

  createRecording: {
    description:
      'Starts a VOC recording job and answers where to send the file: a presigned `PUT` straight to storage (the recording ' +
      'never passes through this API, whose requests are limited to 10 MB). Send the file with exactly the answered headers ' +
      '(`curl -T call.wav -H "Content-Type: audio/wav" -H "If-None-Match: *" "<url>"`); storage refuses a file of another type or size, ' +
      'a PUT without `If-None-Match: *`, the URL after `expiresAt`, and a second PUT to it (412: a URL writes its file once). ' +
      "The job is `started` from now on, and counts among the tenant's recordings in flight (at most 20 by default: 429 past it) until it ends: its arrival starts the analysis (Call Analytics for a two-channel call, a transcription for a mono one), which writes the recording's row " +
      "to the VOC list (`ID` = the job's `recordingId`) and then completes the job; a file that is not readable audio of the " +
      'declared type fails it with a `failureReason`, and so does an upload that never arrives before the URL expires. ' +
      '`Idempotency-Key` makes a retry answer the same job.',
    requestExamples: {
      wav: example('A WAV recording', { fileName: 'call-0001.wav', contentType: 'audio/wav', sizeBytes: 1048576 }),
    },
    success: {
      201: {
        description: 'The job is `started`; upload the file to `upload.url` before `upload.expiresAt`.',
        examples: {
          created: example('Where to upload', {
            jobId: '01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
            upload: {
              method: 'PUT',
              url: 'https://cxm-prod-recordings-123456789012-eu-west-1.s3.eu-west-1.amazonaws.com/recordings/acme/01JF3ZK6Q5V2X8M4N7R9T1W3Y5.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost%3Bif-none-match&X-Amz-Signature=...',
              headers: { 'Content-Type': 'audio/wav', 'Content-Length': '1048576', 'If-None-Match': '*' },
              expiresAt: '2026-01-01T09:15:00.000Z',
            },
          }),
        },
      },
    },
    errorExamples: {
      400: {
        tooLarge: example(
          'Over the size limit',
          error('BadRequest', 'sizeBytes 600000000 is over the limit of 500 MB (500000000 bytes) for one recording.'),
        ),
      },
      409: {
        expired: example(
          'A keyed retry after the URL expired',
          error(
            'Conflict',
            'The upload this Idempotency-Key created has a URL that expired at 2026-01-01T09:15:00.000Z: its job waits for no file and will fail. Create a new upload with a new Idempotency-Key.',
          ),
        ),
      },
      429: {
        inFlight: example(
          "The tenant's recordings in flight",
          error(
            'RateLimitExceeded',
            'This tenant has 20 recordings in flight, the most it may: upload their files (or let them fail) before creating more, and retry.',
          ),
        ),
      },
    },
  },
  getVocJobStatus: {
    description:
      'The status of a VOC recording job. Poll until `completed` or `failed`: a job only moves from `started` to one of them. ' +
      '`started` is in epoch milliseconds.',
    success: {
      200: {
        description: 'The job.',
        examples: {
          completed: example('Completed', {
            id: 'job-0001',
            status: 'completed',
            started: 1767258000000,
            file: 'recordings/acme/call-0001.wav',
            recordingId: 'rec-0001',
          }),
          started: example('Still running', {
            id: 'job-0002',
            status: 'started',
            started: 1767261600000,
            file: 'recordings/acme/call-0002.wav',
            recordingId: 'rec-0002',
          }),
          failed: example('Failed, and why', {
            id: '01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
            status: 'failed',
            started: 1767258000000,
            file: 'recordings/acme/01JF3ZK6Q5V2X8M4N7R9T1W3Y5.wav',
            recordingId: 'rec-01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
            failureReason: 'The file is not readable audio/wav: it holds no WAVE audio.',
          }),
        },
      },
    },
    errorExamples: {
      400: { jobId: example('A refused job id', error('BadRequest', "'jobId' must not contain '/' or '\\'.")) },
      404: {
        absent: example('No such job', error('NotFound', "No VOC recording job 'job-9999' exists in this tenant.")),
      },
    },
  },
  createWebhookEndpoint: {
    description:
      "Registers an endpoint for the tenant's events and answers its signing secret (`whsec_...`), shown this once. " +
      'The URL must be `https` to a host that resolves to public addresses (a local stack also takes `http` to 127.0.0.1, ' +
      'localhost or [::1]); every delivery checks the resolved address again and follows no redirect. ' +
      "A tenant has at most the stage's number of endpoints (20 unless its operators say otherwise): past it, 409. " +
      'With the same `Idempotency-Key`, a retry answers the first answer, secret included, and registers nothing.\n\n' +
      `${WEBHOOK_SUBSCRIBING}\n\n${WEBHOOK_RECEIVING}`,
    requestExamples: {
      endpoint: example('An endpoint for notes and recordings', {
        url: 'https://hooks.acme.example/cxm',
        events: ['note.created', 'voc.job.completed', 'voc.job.failed'],
        description: 'Support tooling',
      }),
    },
    success: {
      201: {
        description: 'The endpoint is registered; deliveries start with the next event.',
        examples: {
          created: example('The endpoint and its secret', {
            ...webhookEndpoint,
            secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwLlbVqsvMLvk=',
          }),
        },
      },
    },
    errorExamples: {
      400: refusedUrl,
      403: unreadableEvent,
      409: {
        full: example(
          "The tenant's limit of endpoints",
          error(
            'Conflict',
            'This tenant has 20 webhook endpoints, the most it may: delete one it no longer uses (or send more event types to one) first.',
          ),
        ),
      },
    },
  },
  listWebhookEndpoints: {
    description:
      "Every endpoint of the tenant, oldest first, without secrets. The stage's limit keeps the list to one page.",
    success: {
      200: {
        description: 'The endpoints.',
        examples: {
          endpoints: example('One enabled, one disabled', {
            data: [
              webhookEndpoint,
              {
                ...webhookEndpoint,
                id: 'ep_01KE3X4M2N8P6Q0R4S7T9V1W3X',
                url: 'https://old.acme.example/hooks',
                events: ['provisioning.document.changed'],
                description: '',
                status: 'disabled',
                disabledReason: 'the receiver answered 410 Gone at 2026-01-02T10:00:00.000Z',
                updatedAt: '2026-01-02T10:00:00.000Z',
              },
            ],
          }),
        },
      },
    },
    errorExamples: {},
  },
  getWebhookEndpoint: {
    description: 'One endpoint, without its secret. A disabled one says why in `disabledReason`.',
    success: { 200: { description: 'The endpoint.', examples: { endpoint: example('An endpoint', webhookEndpoint) } } },
    errorExamples: { 404: noEndpoint },
  },
  updateWebhookEndpoint: {
    description:
      'Changes the fields the body names: `url` (checked as a registration checks it), `events`, `description`, `status`. ' +
      '`status: "enabled"` resumes deliveries to a disabled endpoint, its failures forgotten; `"disabled"` pauses them.\n\n' +
      'Every change, of any field, is checked against the events the endpoint has after it, as a registration is (so a key ' +
      'cannot move or resume an endpoint of events it may not read): ' +
      `${WEBHOOK_SUBSCRIBING} The collections become those of the key that made the change. A pending delivery the ` +
      'endpoint no longer takes (its events or collections changed) is not sent.',
    requestExamples: {
      enable: example('Resume a disabled endpoint', { status: 'enabled' }),
      events: example('Another set of events', { events: ['provisioning.document.changed'] }),
    },
    success: {
      200: {
        description: 'The endpoint as changed.',
        examples: {
          updated: example('Resumed', { ...webhookEndpoint, updatedAt: '2026-01-03T08:00:00.000Z' }),
          documents: example('Document events, by a key that reads two collections', {
            ...webhookEndpoint,
            events: ['provisioning.document.changed'],
            collections: ['bots', 'users'],
            updatedAt: '2026-01-03T08:00:00.000Z',
          }),
        },
      },
    },
    errorExamples: { 400: refusedUrl, 403: unreadableEvent, 404: noEndpoint },
  },
  deleteWebhookEndpoint: {
    description:
      'Deletes the endpoint: nothing more is delivered to it, and its place under the limit is free again. Deleting it again is 404.',
    success: { 204: { description: 'Deleted.', empty: true } },
    errorExamples: { 404: noEndpoint },
  },
  rotateWebhookSecret: {
    description:
      'Makes a new signing secret, shown this once. For 24 hours every delivery is signed with both the new and the replaced ' +
      'secret (the new one first in `webhook-signature`), so the receiver can switch without losing one; after that only the ' +
      'new one signs. A rotation within those 24 hours drops the older secret at once. No body is read. With the same ' +
      '`Idempotency-Key`, a retry answers the same secret instead of rotating again.',
    success: {
      200: {
        description: 'The new secret.',
        examples: {
          rotated: example('A rotation', {
            secret: 'whsec_2uC8mO2ZvNfCq5vI9hX0b1kq0aV5mZ3yJk7E4r1wQ6s=',
            previousSecretExpiresAt: '2026-01-04T08:00:00.000Z',
          }),
        },
      },
    },
    errorExamples: { 404: noEndpoint },
  },
  listWebhookDeliveries: {
    description:
      'What became of each message to the endpoint (one per event and endpoint), newest event first, a page at a time: ' +
      '`pending` (an attempt is due at `nextAttemptAt`), `delivered`, or `failed` with `lastError`. The `id` is the ' +
      "`webhook-id` every attempt of the message carries, the receiver's key for deduplication. Deliveries are kept 30 " +
      'days. An endpoint that does not exist (or was deleted) is 404.',
    success: {
      200: {
        description: 'A page of deliveries.',
        examples: {
          page: example('A delivered message and one being retried', {
            data: [
              {
                id: 'msg_Zk3uA8Qm1pW0sV5dJ2rT7yXcBn',
                type: 'voc.job.failed',
                eventAt: '2026-01-02T09:30:00.000Z',
                status: 'pending',
                attempts: 2,
                lastAttemptAt: '2026-01-02T09:30:06.000Z',
                lastStatus: 503,
                lastError: 'HTTP 503',
                nextAttemptAt: '2026-01-02T09:35:06.000Z',
              },
              {
                id: 'msg_Hq8nC2Lr5tY1oX4bM7vS0wEaGk',
                type: 'note.created',
                eventAt: '2026-01-02T09:00:00.000Z',
                status: 'delivered',
                attempts: 1,
                lastAttemptAt: '2026-01-02T09:00:00.400Z',
                lastStatus: 200,
                deliveredAt: '2026-01-02T09:00:00.400Z',
              },
            ],
            cursor:
              'eyJ2IjoxLCJiZWZvcmUiOiIyMDI2LTAxLTAyVDA5OjAwOjAwLjAwMFojbXNnX0hxOG5DMkxyNXRZMW9YNGJNN3ZTMHdFYUdrIn0',
          }),
        },
      },
    },
    errorExamples: {
      400: {
        cursor: example(
          'Not a cursor of this list',
          error('BadRequest', "Query parameter 'cursor' is not a cursor of this list; take it from the previous page."),
        ),
      },
      404: noEndpoint,
    },
  },
  recoverWebhookDeliveries: {
    description:
      "Sends the endpoint's failed deliveries again: those of events at or after `since` that ended `failed` are " +
      '`pending` again with their schedule started over, each under its same `webhook-id` (a receiver that deduplicates ' +
      `sees nothing twice), and queued a group of ${RECOVER_GROUP_SIZE} at a time, so a call cut short leaves none pending unsent. ` +
      `Bounded: a call reads at most ${RECOVER_READ_LIMIT} deliveries, oldest first, and makes at most ${MAX_RECOVERED_DELIVERIES} ` +
      'pending again; `more` says it stopped at a limit, and `nextSince` is the `since` to go on from. An endpoint is ' +
      `recovered at most once every ${RECOVER_INTERVAL_MS / 1000} s, counted from each call that passed the endpoint's checks ` +
      '(429 `RateLimitExceeded` with `Retry-After` within it). The endpoint must be enabled (409 otherwise: a disabled ' +
      'endpoint would refuse them at once). Deliveries are kept 30 days.',
    requestExamples: { since: example('Since an outage began', { since: '2026-01-02T08:00:00Z' }) },
    success: {
      202: {
        description: 'The failed deliveries read are pending again, their tasks queued; they are sent from now on.',
        examples: {
          recovered: example('Twelve sent again, nothing left', {
            recovered: 12,
            read: 340,
            more: false,
            nextSince: null,
            limits: recoverLimits,
          }),
          more: example('Stopped at the limit: go on from nextSince in a minute', {
            recovered: MAX_RECOVERED_DELIVERIES,
            read: 612,
            more: true,
            nextSince: '2026-01-02T11:47:03.215Z',
            limits: recoverLimits,
          }),
        },
      },
    },
    errorExamples: {
      404: noEndpoint,
      409: {
        disabled: example(
          'The endpoint is disabled',
          error(
            'Conflict',
            'Webhook endpoint \'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H\' is disabled (the receiver answered 410 Gone: it no longer takes these events (at 2026-01-02T10:00:00.000Z)): enable it (PATCH with "status": "enabled") before recovering its deliveries.',
          ),
        ),
      },
      429: {
        tooSoon: example(
          'Recovered less than a minute ago',
          error(
            'RateLimitExceeded',
            "Webhook endpoint 'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H' was recovered at 2026-01-02T12:00:00.000Z, and an endpoint is recovered at most once every 60 s: recover again from 2026-01-02T12:01:00.000Z (in 38 s).",
          ),
        ),
      },
    },
  },
};

/** One event a tenant's endpoint receives: its body's schema, what it says, and an example. */
export interface WebhookDocs {
  schema: SchemaId;
  summary: string;
  example: unknown;
}

export const webhookDocs: Record<WebhookEventType, WebhookDocs> = {
  'note.created': {
    schema: 'NoteCreatedWebhook',
    summary: 'An internal note was committed (once per note, also when a keyed retry replays its 201)',
    example: {
      type: 'note.created',
      timestamp: '2026-01-02T09:00:00.000Z',
      data: {
        tenantId: 'acme',
        conversationId: 'conv-1002',
        note: {
          id: '01KE3WZ8M7Q2X9D4C6B1N5R0TA',
          createdAt: '2026-01-02T09:00:00.000Z',
          visibility: 'internal',
          author: { type: 'system', id: null, name: 'API' },
        },
      },
    },
  },
  'voc.job.completed': {
    schema: 'VocJobEndedWebhook',
    summary: "A VOC recording's job completed: its row is in the VOC list",
    example: {
      type: 'voc.job.completed',
      timestamp: '2026-01-02T09:12:00.000Z',
      data: {
        tenantId: 'acme',
        job: {
          id: '01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
          status: 'completed',
          started: 1767344400000,
          file: 'recordings/acme/01JF3ZK6Q5V2X8M4N7R9T1W3Y5.wav',
          recordingId: 'rec-01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
          analysis: 'call-analytics',
        },
      },
    },
  },
  'voc.job.failed': {
    schema: 'VocJobEndedWebhook',
    summary: "A VOC recording's job failed, and why",
    example: {
      type: 'voc.job.failed',
      timestamp: '2026-01-02T09:12:00.000Z',
      data: {
        tenantId: 'acme',
        job: {
          id: '01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
          status: 'failed',
          started: 1767344400000,
          file: 'recordings/acme/01JF3ZK6Q5V2X8M4N7R9T1W3Y5.wav',
          recordingId: 'rec-01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
          failureReason: 'The file is not readable audio/wav: it holds no WAVE audio.',
        },
      },
    },
  },
  'provisioning.document.changed': {
    schema: 'DocumentChangedWebhook',
    summary: 'A provisioning document was created, replaced, merged or restored through the API: its new version',
    example: {
      type: 'provisioning.document.changed',
      timestamp: '2026-01-02T09:30:00.000Z',
      data: {
        tenantId: 'acme',
        collection: 'bots',
        documentId: 'bot-billing',
        etag: '"k3Jv0cQ9xT2m"',
        version: 2,
        change: 'merged',
      },
    },
  },
};
