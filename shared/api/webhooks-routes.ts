/**
 * Webhook endpoints, their signing secrets and their deliveries. The area's entries of the route table
 * (route-table.ts); its operations' prose and examples are beside them, in webhooks-docs.ts.
 */
import { IDEMPOTENCY_RECORDS, type RouteSpec } from './route-spec.ts';

/** A webhook endpoint's create or change is a URL, a few event names and a short description. */
export const WEBHOOK_ENDPOINT_REQUEST_MAX_BYTES = 8192;

/**
 * The webhooks routes, in the order the OpenAPI document lists them.
 *
 * @example webhooksRoutes.map((route) => route.id) // ['createWebhookEndpoint', 'listWebhookEndpoints']
 */
export const webhooksRoutes = [
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
    sealsWebhookSecrets: true,
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
    sealsWebhookSecrets: true,
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
