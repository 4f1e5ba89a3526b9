/**
 * The reporting lists: assistant and VOC conversation rows, cursor-paginated. The area's entries of
 * the route table (route-table.ts); its operations' prose and examples are beside them, in reporting-
 * docs.ts.
 */
import type { RouteSpec } from './route-spec.ts';

/**
 * The reporting routes, in the order the OpenAPI document lists them.
 *
 * @example reportingRoutes.map((route) => route.id) // ['listAssistantConversations', 'listVocConversations']
 */
export const reportingRoutes = [
  {
    id: 'listAssistantConversations',
    method: 'GET',
    path: '/api/v1/reporting/tenants/{tenantId}/assistant/conversations',
    handler: 'functions/reporting/list-assistant-conversations.ts',
    scope: 'reporting:assistant.read',
    tables: { reporting: { indexQueries: ['byTime'] }, reportingCounts: { operations: ['Query'] } },
    reportingIndex: true,
    secrets: ['cursorSecret'],
    schemas: { path: 'TenantPath', query: 'ReportQuery', response: { status: 200, schema: 'AssistantReportList' } },
    summary: 'List assistant conversations (reporting rows, cursor-paginated)',
    errors: [400, 503],
  },
  {
    id: 'listVocConversations',
    method: 'GET',
    path: '/api/v1/reporting/tenants/{tenantId}/voc/conversations',
    handler: 'functions/reporting/list-voc-conversations.ts',
    scope: 'reporting:voc.read',
    tables: { reporting: { indexQueries: ['byTime'] }, reportingCounts: { operations: ['Query'] } },
    reportingIndex: true,
    secrets: ['cursorSecret'],
    schemas: { path: 'TenantPath', query: 'ReportQuery', response: { status: 200, schema: 'VocReportList' } },
    summary: 'List VOC conversations (reporting rows, cursor-paginated)',
    errors: [400, 503],
  },
] as const satisfies readonly RouteSpec[];
