/**
 * Provisioning documents: collections of JSON documents, each with a current version and the versions
 * kept before it. The area's entries of the route table (route-table.ts); its operations' prose and
 * examples are beside them, in provisioning-docs.ts.
 */
import { type TableId, VERSION_ENTRIES_INDEX } from '#shared/store/table-specs';
import { IDEMPOTENCY_RECORDS, type RouteSpec, type TableAccess } from './route-spec.ts';

/**
 * Raw request bytes a provisioning write may send. The stored document's own bound (350 KB of
 * compact JSON) is checked after parsing; this one stops a huge body before it is parsed.
 */
export const DOCUMENT_REQUEST_MAX_BYTES = 1024 * 1024;

/**
 * What a document write does (shared/store/documents-store.ts): the document read for its next
 * version number and updated; that version put, and the one the retention pushes out expired (TTL
 * removes it), in the write's own transaction with its Idempotency-Key record.
 */
const DOCUMENT_WRITE = {
  documents: { operations: ['GetItem', 'UpdateItem'] },
  documentVersions: { operations: ['PutItem', 'UpdateItem'] },
  idempotency: IDEMPOTENCY_RECORDS,
} satisfies Partial<Record<TableId, TableAccess>>;

/**
 * The provisioning routes, in the order the OpenAPI document lists them.
 *
 * @example provisioningRoutes.map((route) => route.id) // ['listDocuments', 'getCurrentDocument']
 */
export const provisioningRoutes = [
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
    tables: DOCUMENT_WRITE,
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
    tables: DOCUMENT_WRITE,
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
      ...DOCUMENT_WRITE,
      documentVersions: { operations: ['GetItem', ...DOCUMENT_WRITE.documentVersions.operations] },
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
] as const satisfies readonly RouteSpec[];
