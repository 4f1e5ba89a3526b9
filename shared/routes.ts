/**
 * THE route table. CDK builds the REST API, the functions and their grants from it; the local
 * gateway matches requests with it; the OpenAPI document is generated from it
 * (shared/openapi/build-openapi-document.ts). Adding an endpoint is one entry here, one handler file and its schemas.
 */

import type { SchemaId } from '#shared/schemas/schema-ids';
import { SECRET_ENVS, type SecretName } from '#shared/settings/secret-settings';
import { type TableId, VERSION_ENTRIES_INDEX } from '#shared/store/table-specs';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * The stage's secrets: `cursorSecret` signs reporting cursors (routes declare it), `keyTagSecret`
 * tags API keys (the authorizer's, AUTHORIZER_SECRETS), `webhookSecretKey` seals webhook signing
 * secrets at rest (the routes that make one, and the delivery function).
 */
export const SECRET_IDS = Object.keys(SECRET_ENVS) as SecretName[];
export type SecretId = SecretName;
/** An item operation of DynamoDB a function makes on a table: its IAM action is `dynamodb:<operation>`. */
export type TableOperation = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query';

/**
 * What a function does with one table, exactly: the operations it makes on the table (a
 * transaction needs each of its parts' operations) and the indexes it queries. CDK grants these
 * and nothing else; test/infra/iam-simulation.test.ts holds every grant to a recorded call.
 */
export interface TableAccess {
  operations?: readonly TableOperation[];
  /** Indexes of the table's spec it queries (`dynamodb:Query` on the index). */
  indexQueries?: readonly string[];
}

/**
 * The idempotency records of a keyed write: put in the write's own transaction, and read only when
 * a concurrent request of the same key holds its claim (shared/store/idempotency-ledger.ts).
 */
export /**
 * A document write's history (shared/store/documents-store.ts): the new version put, and the one
 * the retention pushes out expired (TTL removes it), in the write's own transaction.
 */
const VERSION_WRITES: TableAccess = { operations: ['PutItem', 'UpdateItem'] };

const IDEMPOTENCY_RECORDS: TableAccess = { operations: ['GetItem', 'PutItem'] };

export interface RouteSpec {
  /** Stable identifier: function name suffix, log field, OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  /** Path template relative to the stage, parameters as `{name}`. */
  path: string;
  /** Further methods routed to the same function (which answers them itself, e.g. 405). */
  otherMethods?: readonly HttpMethod[];
  /** Handler module, relative to the project root; it exports `handler`. */
  handler: string;
  /**
   * Scope the key must be granted. `{param}` placeholders are filled from the path, so a
   * provisioning route can require `provisioning:{collection}.read`.
   */
  scope: string;
  /** The only tables the function may touch, and exactly how. Drives IAM grants and env vars. */
  tables: Partial<Record<TableId, TableAccess>>;
  schemas: {
    path?: SchemaId;
    query?: SchemaId;
    body?: SchemaId;
    /** Success status and the schema of its body (OpenAPI, contract tests). */
    response: { status: number; schema: SchemaId; otherStatuses?: readonly number[] };
    /** A body the handler reads itself (MCP's JSON-RPC): documented in OpenAPI, not validated by the chain. */
    handlerParsedBody?: SchemaId;
    /** Error statuses whose body is not `{code, message}`, with the schema of what they send instead. */
    errorBodies?: Readonly<Partial<Record<number, SchemaId>>>;
  };
  /**
   * `message-only`: a fault is answered 500 `{message}` instead of the usual `{code, message}`
   * (the MCP endpoint's contract).
   */
  faultBody?: 'message-only';
  /**
   * Reads the reporting index: OpenSearch on stages that have it (then the `reporting` table
   * is not granted), else the reporting table's window index.
   */
  reportingIndex?: true;
  /**
   * Refuse a request whose `Origin` is not allowed, and locally one whose `Host` is foreign:
   * the MCP transport spec asks this of every Streamable HTTP server, against DNS rebinding. CDK
   * passes the function the stage's `mcpAllowedOrigins`; the local gateway adds its own origins.
   */
  checksOrigin?: true;
  /**
   * Accepts `Idempotency-Key`: the chain turns it into a claim, the handler records its
   * answer in the write's own transaction (the route must then have `idempotency: IDEMPOTENCY_RECORDS`).
   */
  idempotencyKey?: true;
  /**
   * Conditional requests on a document: both take If-Match (412) and If-None-Match (304 on
   * a `read`, 412 on a `write`), and answer with an ETag.
   */
  preconditions?: 'read' | 'write';
  /**
   * The recordings bucket: `presign` signs upload URLs (the function may put recording objects, so
   * its URLs may too) and learns the stage's upload limits; `deadlines` learns only how long a job
   * may wait, to fail one whose upload or processing is overdue when it is read.
   */
  recordings?: 'presign' | 'deadlines';
  /**
   * Registers webhook targets: the function learns which targets the stage allows
   * (FUNCTION_ENV.webhookTargets) and a tenant's limit of endpoints (`webhooks.maxEndpointsPerTenant`).
   */
  webhookTargets?: true;
  /** Sends webhook delivery tasks: the function learns the queue's URL and may send to it. */
  webhookQueue?: true;
  /** Secrets the function reads (CDK grants it and passes their ARNs; locally an env var). */
  secrets?: readonly SecretId[];
  /** Largest accepted request body in raw UTF-8 bytes (413 above it). */
  maxBodyBytes?: number;
  summary: string;
  /** Error statuses the operation documents, beyond the gateway's 401/403/429/5xx. */
  errors: number[];
}

export const NOTE_BODY_MAX_BYTES = 32768;
/**
 * Raw request bytes a provisioning write may send. The stored document's own bound (350 KB of
 * compact JSON) is checked after parsing; this one stops a huge body before it is parsed.
 */
export const DOCUMENT_REQUEST_MAX_BYTES = 1024 * 1024;
/** A JSON-RPC request to the bots endpoint is small; anything larger is refused before MCP reads it. */
export const MCP_REQUEST_MAX_BYTES = 256 * 1024;
/** An upload request is three small fields. */
export const RECORDING_UPLOAD_REQUEST_MAX_BYTES = 4096;
/** A webhook endpoint's create or change is a URL, a few event names and a short description. */
export const WEBHOOK_ENDPOINT_REQUEST_MAX_BYTES = 8192;
/** The REQUEST authorizer every route sits behind. */
export const AUTHORIZER_HANDLER = 'functions/authorizer.ts';
/** The authorizer reads a key's record by its hash, and nothing else. */
export const AUTHORIZER_TABLES = { keys: { operations: ['GetItem'] } } as const satisfies Partial<
  Record<TableId, TableAccess>
>;
/** The authorizer checks a key's tag before any read (shared/auth/key-tag.ts). */
export const AUTHORIZER_SECRETS = ['keyTagSecret'] as const satisfies readonly SecretId[];
/** Function timeout; the chain answers 504 itself just before it. */
export const FUNCTION_TIMEOUT_SECONDS = 10;

export const routes = [
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
  {
    id: 'listDocuments',
    method: 'GET',
    path: '/api/v1/provisioning/tenants/{tenantId}/{collection}',
    handler: 'functions/provisioning/list-documents.ts',
    scope: 'provisioning:{collection}.read',
    tables: { documents: { operations: ['Query'] } },
    schemas: { path: 'CollectionPath', query: 'ListDocumentsQuery', response: { status: 200, schema: 'DocumentList' } },
    summary: 'List a provisioning collection, ordered by document id',
    errors: [400],
  },
  {
    id: 'getCurrentDocument',
    method: 'GET',
    path: '/api/v1/provisioning/tenants/{tenantId}/{collection}/{docId}/versions/current',
    handler: 'functions/provisioning/get-current-document.ts',
    scope: 'provisioning:{collection}.read',
    tables: { documents: { operations: ['GetItem'] } },
    schemas: {
      path: 'DocumentPath',
      query: 'NoQuery',
      response: { status: 200, schema: 'DocumentBody', otherStatuses: [304] },
    },
    preconditions: 'read',
    summary: 'Get the current version of a document',
    errors: [400, 404, 412],
  },
  {
    id: 'replaceCurrentDocument',
    method: 'POST',
    path: '/api/v1/provisioning/tenants/{tenantId}/{collection}/{docId}/versions/current',
    handler: 'functions/provisioning/replace-current-document.ts',
    scope: 'provisioning:{collection}.write',
    tables: {
      documents: { operations: ['GetItem', 'UpdateItem'] },
      documentVersions: VERSION_WRITES,
      idempotency: IDEMPOTENCY_RECORDS,
    },
    schemas: {
      path: 'DocumentPath',
      query: 'NoQuery',
      body: 'DocumentBody',
      response: { status: 201, schema: 'DocumentBody', otherStatuses: [200] },
    },
    maxBodyBytes: DOCUMENT_REQUEST_MAX_BYTES,
    idempotencyKey: true,
    preconditions: 'write',
    summary: 'Create (201) or replace (200) the current version of a document',
    errors: [400, 412, 413, 422],
  },
  {
    id: 'mergeCurrentDocument',
    method: 'PUT',
    path: '/api/v1/provisioning/tenants/{tenantId}/{collection}/{docId}/versions/current',
    handler: 'functions/provisioning/merge-current-document.ts',
    scope: 'provisioning:{collection}.write',
    tables: {
      documents: { operations: ['GetItem', 'UpdateItem'] },
      documentVersions: VERSION_WRITES,
      idempotency: IDEMPOTENCY_RECORDS,
    },
    schemas: {
      path: 'DocumentPath',
      query: 'NoQuery',
      body: 'DocumentBody',
      response: { status: 200, schema: 'DocumentBody' },
    },
    maxBodyBytes: DOCUMENT_REQUEST_MAX_BYTES,
    idempotencyKey: true,
    preconditions: 'write',
    summary: 'Merge a JSON Merge Patch (RFC 7396) into the current version of a document',
    errors: [400, 404, 412, 413, 422],
  },
  {
    id: 'listDocumentVersions',
    method: 'GET',
    path: '/api/v1/provisioning/tenants/{tenantId}/{collection}/{docId}/versions',
    handler: 'functions/provisioning/list-document-versions.ts',
    scope: 'provisioning:{collection}.read',
    // The document read for its newest number, then its versions' entries (without their documents)
    // queried newest first.
    tables: { documents: { operations: ['GetItem'] }, documentVersions: { indexQueries: [VERSION_ENTRIES_INDEX] } },
    schemas: {
      path: 'DocumentPath',
      query: 'ListDocumentVersionsQuery',
      response: { status: 200, schema: 'DocumentVersionList' },
    },
    summary: "List a document's versions kept, newest first",
    errors: [400, 404],
  },
  {
    id: 'getDocumentVersion',
    method: 'GET',
    path: '/api/v1/provisioning/tenants/{tenantId}/{collection}/{docId}/versions/{version}',
    handler: 'functions/provisioning/get-document-version.ts',
    scope: 'provisioning:{collection}.read',
    tables: { documents: { operations: ['GetItem'] }, documentVersions: { operations: ['GetItem'] } },
    schemas: {
      path: 'DocumentVersionPath',
      query: 'NoQuery',
      response: { status: 200, schema: 'DocumentBody', otherStatuses: [304] },
    },
    preconditions: 'read',
    summary: 'Get one version of a document by its number',
    errors: [400, 404, 410, 412],
  },
  {
    id: 'restoreDocumentVersion',
    method: 'POST',
    path: '/api/v1/provisioning/tenants/{tenantId}/{collection}/{docId}/versions/{version}/restore',
    handler: 'functions/provisioning/restore-document-version.ts',
    scope: 'provisioning:{collection}.write',
    // The version read, then written as the document's next version as any write is.
    tables: {
      documents: { operations: ['GetItem', 'UpdateItem'] },
      documentVersions: { operations: ['GetItem', ...(VERSION_WRITES.operations ?? [])] },
      idempotency: IDEMPOTENCY_RECORDS,
    },
    schemas: {
      path: 'DocumentVersionPath',
      query: 'NoQuery',
      response: { status: 200, schema: 'DocumentBody' },
    },
    idempotencyKey: true,
    preconditions: 'write',
    summary: 'Restore a version: a new current version equal to it',
    errors: [400, 404, 410, 412, 422],
  },
  {
    id: 'mcpBots',
    method: 'POST',
    otherMethods: ['GET', 'DELETE'],
    path: '/api/v1/mcp/tenants/{tenantId}/bots',
    handler: 'functions/mcp/serve-bots.ts',
    scope: 'mcp:bots.read',
    tables: { documents: { operations: ['Query', 'GetItem'] } },
    schemas: {
      path: 'TenantPath',
      query: 'NoQuery',
      handlerParsedBody: 'JsonRpcRequest',
      response: { status: 200, schema: 'JsonRpcMessage', otherStatuses: [202] },
      errorBodies: { 400: 'JsonRpcBadRequest', 404: 'JsonRpcMethodNotFound', 405: 'JsonRpcMessage' },
    },
    faultBody: 'message-only',
    checksOrigin: true,
    maxBodyBytes: MCP_REQUEST_MAX_BYTES,
    summary: 'MCP server for bots (Streamable HTTP, JSON-RPC 2.0)',
    errors: [400, 404, 405],
  },
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
  {
    id: 'createRecording',
    method: 'POST',
    path: '/api/v1/voc/tenants/{tenantId}/recordings',
    handler: 'functions/voc/create-recording-upload.ts',
    scope: 'voc:recordings.write',
    // The job is put and its tenant's count of recordings in flight updated in one transaction.
    tables: { vocJobs: { operations: ['PutItem', 'UpdateItem'] }, idempotency: IDEMPOTENCY_RECORDS },
    recordings: 'presign',
    schemas: {
      path: 'TenantPath',
      query: 'NoQuery',
      body: 'CreateRecordingUploadBody',
      response: { status: 201, schema: 'RecordingUpload' },
    },
    maxBodyBytes: RECORDING_UPLOAD_REQUEST_MAX_BYTES,
    idempotencyKey: true,
    summary: 'Start a VOC recording job: answers where to upload the file (a presigned PUT straight to storage)',
    errors: [400, 409, 413, 422],
  },
  {
    id: 'getVocJobStatus',
    method: 'GET',
    path: '/api/v1/voc/tenants/{tenantId}/recording/{jobId}/status',
    handler: 'functions/voc/get-job-status.ts',
    scope: 'voc:recordings.read',
    tables: { vocJobs: { operations: ['GetItem', 'UpdateItem'] } },
    recordings: 'deadlines',
    schemas: { path: 'VocJobPath', query: 'NoQuery', response: { status: 200, schema: 'VocJobStatus' } },
    summary: 'Get the status of a VOC recording job',
    errors: [400, 404],
  },
  {
    id: 'createWebhookEndpoint',
    method: 'POST',
    path: '/api/v1/webhooks/tenants/{tenantId}/endpoints',
    handler: 'functions/webhooks/create-webhook-endpoint.ts',
    scope: 'webhooks:endpoints.write',
    // The endpoint is put and its tenant's count of endpoints updated in one transaction.
    tables: { webhookEndpoints: { operations: ['PutItem', 'UpdateItem'] }, idempotency: IDEMPOTENCY_RECORDS },
    webhookTargets: true,
    schemas: {
      path: 'TenantPath',
      query: 'NoQuery',
      body: 'CreateWebhookEndpointBody',
      response: { status: 201, schema: 'CreatedWebhookEndpoint' },
    },
    maxBodyBytes: WEBHOOK_ENDPOINT_REQUEST_MAX_BYTES,
    idempotencyKey: true,
    secrets: ['webhookSecretKey'],
    summary: 'Register a webhook endpoint: answers its signing secret, shown this once',
    errors: [400, 409, 413, 422],
  },
  {
    id: 'listWebhookEndpoints',
    method: 'GET',
    path: '/api/v1/webhooks/tenants/{tenantId}/endpoints',
    handler: 'functions/webhooks/list-webhook-endpoints.ts',
    scope: 'webhooks:endpoints.read',
    tables: { webhookEndpoints: { operations: ['Query'] } },
    schemas: { path: 'TenantPath', query: 'NoQuery', response: { status: 200, schema: 'WebhookEndpointList' } },
    summary: "List the tenant's webhook endpoints",
    errors: [400],
  },
  {
    id: 'getWebhookEndpoint',
    method: 'GET',
    path: '/api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}',
    handler: 'functions/webhooks/get-webhook-endpoint.ts',
    scope: 'webhooks:endpoints.read',
    tables: { webhookEndpoints: { operations: ['GetItem'] } },
    schemas: {
      path: 'WebhookEndpointPath',
      query: 'NoQuery',
      response: { status: 200, schema: 'WebhookEndpoint' },
    },
    summary: 'Get a webhook endpoint',
    errors: [400, 404],
  },
  {
    id: 'updateWebhookEndpoint',
    method: 'PATCH',
    path: '/api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}',
    handler: 'functions/webhooks/update-webhook-endpoint.ts',
    scope: 'webhooks:endpoints.write',
    tables: { webhookEndpoints: { operations: ['GetItem', 'PutItem'] } },
    webhookTargets: true,
    schemas: {
      path: 'WebhookEndpointPath',
      query: 'NoQuery',
      body: 'UpdateWebhookEndpointBody',
      response: { status: 200, schema: 'WebhookEndpoint' },
    },
    maxBodyBytes: WEBHOOK_ENDPOINT_REQUEST_MAX_BYTES,
    summary: "Change a webhook endpoint's URL, events, description or status (`enabled` resumes a disabled one)",
    errors: [400, 404, 413],
  },
  {
    id: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: '/api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}',
    handler: 'functions/webhooks/delete-webhook-endpoint.ts',
    scope: 'webhooks:endpoints.write',
    // The endpoint is deleted and its tenant's count of endpoints updated in one transaction.
    tables: { webhookEndpoints: { operations: ['DeleteItem', 'UpdateItem'] } },
    schemas: { path: 'WebhookEndpointPath', query: 'NoQuery', response: { status: 204, schema: 'NoContent' } },
    summary: 'Delete a webhook endpoint: nothing more is delivered to it',
    errors: [400, 404],
  },
  {
    id: 'rotateWebhookSecret',
    method: 'POST',
    path: '/api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}/rotate-secret',
    handler: 'functions/webhooks/rotate-webhook-secret.ts',
    scope: 'webhooks:endpoints.write',
    // Read, then put on condition that the secret is still the one read, with its Idempotency-Key record.
    tables: { webhookEndpoints: { operations: ['GetItem', 'UpdateItem'] }, idempotency: IDEMPOTENCY_RECORDS },
    schemas: {
      path: 'WebhookEndpointPath',
      query: 'NoQuery',
      response: { status: 200, schema: 'RotatedWebhookSecret' },
    },
    idempotencyKey: true,
    secrets: ['webhookSecretKey'],
    summary: "Rotate a webhook endpoint's signing secret: both sign for 24 hours",
    errors: [400, 404, 422],
  },
  {
    id: 'listWebhookDeliveries',
    method: 'GET',
    path: '/api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}/deliveries',
    handler: 'functions/webhooks/list-webhook-deliveries.ts',
    scope: 'webhooks:endpoints.read',
    // The endpoint must exist; its deliveries are a query of their own partition.
    tables: { webhookEndpoints: { operations: ['GetItem'] }, webhookDeliveries: { operations: ['Query'] } },
    schemas: {
      path: 'WebhookEndpointPath',
      query: 'ListWebhookDeliveriesQuery',
      response: { status: 200, schema: 'WebhookDeliveryList' },
    },
    summary: "List a webhook endpoint's deliveries, newest first (cursor-paginated)",
    errors: [400, 404],
  },
  {
    id: 'recoverWebhookDeliveries',
    method: 'POST',
    path: '/api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}/recover',
    handler: 'functions/webhooks/recover-webhook-deliveries.ts',
    scope: 'webhooks:endpoints.write',
    // The recover claimed on the endpoint (enabled, none within the interval) in one conditional
    // update; its failed deliveries since then read, made pending and queued a group at a time (and
    // made failed again when the queue refuses a group).
    tables: {
      webhookEndpoints: { operations: ['UpdateItem'] },
      webhookDeliveries: { operations: ['Query', 'UpdateItem'] },
    },
    webhookQueue: true,
    schemas: {
      path: 'WebhookEndpointPath',
      query: 'NoQuery',
      body: 'RecoverWebhookDeliveriesBody',
      response: { status: 202, schema: 'RecoveredWebhookDeliveries' },
    },
    maxBodyBytes: 1024,
    summary: "Send a webhook endpoint's failed deliveries again, those of events since a time",
    errors: [400, 404, 409, 413, 429],
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

/** The route's path template with `params` filled in, each percent-encoded. */
export function fillPath(route: RouteSpec, params: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.id} needs path parameter ${name}`);
    return encodeURIComponent(value);
  });
}
