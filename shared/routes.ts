/**
 * THE route table. CDK builds the REST API, the functions and their grants from it; the local
 * gateway matches requests with it; the OpenAPI document (shared/openapi.ts, to come) will be
 * generated from it. Adding an endpoint is one entry here, one handler file and its schemas.
 */
import type { TableId } from '#shared/store/table-specs';
import type { SchemaId } from '#shared/schemas/schema-ids';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type TableAccess = 'RO' | 'RW';

export interface RouteSpec {
  /** Stable identifier: function name suffix, log field, OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  /** Path template relative to the stage, parameters as `{name}`. */
  path: string;
  /** Handler module, relative to the project root; it exports `handler`. */
  handler: string;
  /**
   * Scope the key must be granted (D2). `{param}` placeholders are filled from the path, so a
   * provisioning route can require `provisioning:{collection}.read`.
   */
  scope: string;
  /** The only tables the function may touch, and how. Drives IAM grants and env vars. */
  tables: Partial<Record<TableId, TableAccess>>;
  schemas: {
    path?: SchemaId;
    query?: SchemaId;
    body?: SchemaId;
    /** Success status and the schema of its body (OpenAPI, contract tests). */
    response: { status: number; schema: SchemaId };
  };
  /** Largest accepted request body in raw UTF-8 bytes (413 above it). */
  maxBodyBytes?: number;
  summary: string;
  /** Error statuses the operation documents, beyond the gateway's 401/403/429/5xx. */
  errors: number[];
}

export const NOTE_BODY_MAX_BYTES = 32768;
/** The REQUEST authorizer every route sits behind. */
export const AUTHORIZER_HANDLER = 'functions/authorizer.ts';
/** Function timeout; the chain answers 504 itself just before it. */
export const FUNCTION_TIMEOUT_SECONDS = 10;

export const routes = [
  {
    id: 'addInternalNote',
    method: 'POST',
    path: '/api/v1/cxm/tenants/{tenantId}/conversations/{conversationId}/internal-notes',
    handler: 'functions/conversations/add-internal-note.ts',
    scope: 'cxm:conversations.write',
    tables: { conversations: 'RW' },
    schemas: {
      path: 'ConversationPath',
      query: 'NoQuery',
      body: 'AddInternalNoteBody',
      response: { status: 201, schema: 'InternalNoteResponse' },
    },
    maxBodyBytes: NOTE_BODY_MAX_BYTES,
    summary: 'Add an internal note to a customer conversation',
    errors: [400, 404, 409, 413],
  },
] as const satisfies readonly RouteSpec[];

export type RouteId = (typeof routes)[number]['id'];

export function routeById(id: RouteId): RouteSpec {
  const route = routes.find((r) => r.id === id);
  if (!route) throw new Error(`unknown route ${id}`);
  return route;
}

/** The scope areas some route requires (`cxm`, ...): the only areas a key may be issued for. */
export function scopeAreas(): string[] {
  return [...new Set(routes.map((route) => route.scope.split(':')[0]!))].sort();
}
