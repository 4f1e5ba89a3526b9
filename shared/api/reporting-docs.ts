/**
 * The reporting area's operations in the OpenAPI document: their prose and examples, what a reader
 * needs beyond their route entries (reporting-routes.ts) and the schemas. Every example must validate
 * against its schema (test/contract/openapi-examples.test.ts).
 */
import { unavailable } from './api-error.ts';
import { type AreaDocs, error, errorOf, example } from './operation-doc.ts';
import type { reportingRoutes } from './reporting-routes.ts';

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

/**
 * The reporting area: its tag's description, and each operation's docs.
 *
 * @example reportingDocs.operations.listAssistantConversations.description
 */
export const reportingDocs: AreaDocs<(typeof reportingRoutes)[number]['id']> = {
  description:
    'Cursor-paginated reporting rows of assistant and VOC conversations, without message or transcript content.',
  operations: {
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
  },
};
