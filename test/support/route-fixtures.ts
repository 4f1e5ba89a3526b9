/**
 * One permitted request per route of the route table, with the data that makes it succeed. The
 * authorization matrix, the hostile-input properties and the tenant-isolation test all build
 * their requests from here, so a route added to the table without a fixture fails their guards
 * (and does not compile: the map is typed by route id).
 */
import { createServer } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { HttpMethod, RouteSpec } from '#shared/api/route-spec';
import { fillPath, type RouteId, routes } from '#shared/api/route-table';
import { resolveScope } from '#shared/auth/grant-scope';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import type { WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import type { SchemaId } from '#shared/schemas/schema-ids';
import { documentClient } from '#shared/store/dynamo-client';
import { forgetLastRecover } from './forget-last-recover.ts';
import { storedEndpoint } from './stored-endpoint.ts';
import type { TestApi } from './test-api.ts';

export interface RouteCall {
  method: HttpMethod;
  /** Path with every parameter percent-encoded. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface PermittedAnswer {
  status: number;
  schema: SchemaId;
}

export interface RouteFixture {
  /** Stores what the fixture's requests address, marked with the tenant id so a leak shows. */
  arrange(api: TestApi, tenantId: string): Promise<void>;
  /** Path parameters besides tenantId; `caseId` is unique per request where the route writes. */
  params(caseId: string): Record<string, string>;
  body?(caseId: string, tenantId: string): unknown;
  headers?: Record<string, string>;
  /** What a permitted request answers, for every method the route declares. */
  permitted: Partial<Record<HttpMethod, PermittedAnswer>>;
  /**
   * Arranges what the request of `caseId` alone addresses, before it is sent (a DELETE's endpoint:
   * every request deletes one of its own).
   */
  prepare?(api: TestApi, tenantId: string, caseId: string): Promise<void>;
  /**
   * What in a permitted answer is the tenant's own, when the answer does not carry the tenant's id
   * (the versions list: the ETag of the tenant's own current version).
   */
  marker?(api: TestApi, tenantId: string): Promise<string>;
  /** For routes that write: whether the request of `caseId` left its effect in the store. */
  wrote?(api: TestApi, tenantId: string, caseId: string): Promise<boolean>;
  /**
   * The event of the webhook endpoint a permitted request writes, and the scope it needs besides
   * the route's: the read scope of what the event carries. A key without it is refused.
   */
  subscribes?: { event: WebhookEventType; scope: string };
}

export const FIXTURE_CONVERSATION = 'conv-1';
export const FIXTURE_COLLECTION = 'users';
export const FIXTURE_DOC = 'doc-1';
export const FIXTURE_BOT = 'bot-1';
/** A document of FIXTURE_COLLECTION with a history, which no request of the fixtures writes to. */
export const FIXTURE_HISTORY_DOC = 'doc-history';
/** The document a restore of `caseId` writes to: its own, so that what it wrote shows. */
export const restoredDoc = (caseId: string) => `restore-${caseId}`;
export const FIXTURE_ROW = 'row-1';
export const FIXTURE_JOB = 'job-1';
const HOUR = 3_600_000;

async function storedDocument(
  api: TestApi,
  tenantId: string,
  docId: string,
): Promise<Record<string, unknown> | undefined> {
  const json = (await api.documents.read(tenantId, FIXTURE_COLLECTION, docId))?.json;
  return json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>);
}

/** Two versions of `docId`, marked with the tenant: version 1 names Ada, version 2 Ada Lovelace. */
async function addHistory(api: TestApi, tenantId: string, docId: string): Promise<void> {
  await api.addDocument(tenantId, FIXTURE_COLLECTION, docId, { name: 'Ada', owner: tenantId });
  await api.addDocument(tenantId, FIXTURE_COLLECTION, docId, { name: 'Ada Lovelace', owner: tenantId });
}

const mcpHeaders = { Accept: 'application/json, text/event-stream' };

export const FIXTURE_ENDPOINT = 'ep_fixture';
/**
 * The receiver the fixtures' endpoints point at, on this machine: it answers every delivery 204, so
 * a delivery the suites cause (a recover's) ends at its first attempt instead of being tried again
 * behind them.
 */
async function startFixtureReceiver(): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/cxm`;
}
const FIXTURE_RECEIVER = await startFixtureReceiver();
/** The event of the fixtures' endpoints, and the scope that reads what it carries (the job status read's). */
const FIXTURE_SUBSCRIPTION = { event: 'voc.job.failed', scope: 'voc:recordings.read' } as const;

/** A webhook endpoint of `tenantId`, put through the store (outside the tenant's limit of endpoints). */
async function addEndpoint(api: TestApi, tenantId: string, endpointId: string, description = tenantId): Promise<void> {
  await api.webhookEndpoints.create(
    tenantId,
    // An event these suites seldom make: their notes and documents are delivered to no one.
    storedEndpoint({ id: endpointId, url: FIXTURE_RECEIVER, events: [FIXTURE_SUBSCRIPTION.event], description }),
    { limit: Number.MAX_SAFE_INTEGER },
  );
}

/** The endpoints each DELETE request of a case was given, so that only those count as deleted. */
const preparedDeletes = new Set<string>();
const deletedEndpoint = (caseId: string) => `ep_delete-${caseId}`;
/** The time of each case's failed delivery, which its recover is since. */
const failedDeliveries = new Map<string, string>();
/** The fixture endpoint's secret before each rotation of a case. */
const secretsBefore = new Map<string, string | undefined>();

export const routeFixtures = {
  addInternalNote: {
    arrange: (api, tenantId) => api.addConversation(tenantId, { id: FIXTURE_CONVERSATION }),
    params: () => ({ conversationId: FIXTURE_CONVERSATION }),
    body: (caseId, tenantId) => ({ body: `note ${caseId} for ${tenantId}` }),
    permitted: { POST: { status: 201, schema: 'InternalNoteResponse' } },
    wrote: async (api, tenantId, caseId) =>
      (await api.conversations.listNotes(tenantId, FIXTURE_CONVERSATION)).some((note) =>
        note.body.startsWith(`note ${caseId} `),
      ),
  },
  listDocuments: {
    arrange: (api, tenantId) =>
      api.addDocument(tenantId, FIXTURE_COLLECTION, FIXTURE_DOC, { name: 'Ada', owner: tenantId }),
    params: () => ({ collection: FIXTURE_COLLECTION }),
    permitted: { GET: { status: 200, schema: 'DocumentList' } },
  },
  getCurrentDocument: {
    arrange: (api, tenantId) =>
      api.addDocument(tenantId, FIXTURE_COLLECTION, FIXTURE_DOC, { name: 'Ada', owner: tenantId }),
    params: () => ({ collection: FIXTURE_COLLECTION, docId: FIXTURE_DOC }),
    permitted: { GET: { status: 200, schema: 'DocumentBody' } },
  },
  replaceCurrentDocument: {
    arrange: async () => undefined,
    // A new document per request, so every permitted request is a create (201).
    params: (caseId) => ({ collection: FIXTURE_COLLECTION, docId: `new-${caseId}` }),
    body: (caseId, tenantId) => ({ written: caseId, owner: tenantId }),
    permitted: { POST: { status: 201, schema: 'DocumentBody' } },
    wrote: async (api, tenantId, caseId) => (await storedDocument(api, tenantId, `new-${caseId}`)) !== undefined,
  },
  mergeCurrentDocument: {
    arrange: (api, tenantId) =>
      api.addDocument(tenantId, FIXTURE_COLLECTION, FIXTURE_DOC, { name: 'Ada', owner: tenantId }),
    params: () => ({ collection: FIXTURE_COLLECTION, docId: FIXTURE_DOC }),
    body: (caseId, tenantId) => ({ [`merged-${caseId}`]: tenantId }),
    permitted: { PUT: { status: 200, schema: 'DocumentBody' } },
    wrote: async (api, tenantId, caseId) =>
      (await storedDocument(api, tenantId, FIXTURE_DOC))?.[`merged-${caseId}`] !== undefined,
  },
  listDocumentVersions: {
    arrange: (api, tenantId) => addHistory(api, tenantId, FIXTURE_HISTORY_DOC),
    params: () => ({ collection: FIXTURE_COLLECTION, docId: FIXTURE_HISTORY_DOC }),
    permitted: { GET: { status: 200, schema: 'DocumentVersionList' } },
    marker: async (api, tenantId) =>
      String((await api.documents.read(tenantId, FIXTURE_COLLECTION, FIXTURE_HISTORY_DOC))?.etag),
  },
  getDocumentVersion: {
    arrange: (api, tenantId) => addHistory(api, tenantId, FIXTURE_HISTORY_DOC),
    params: () => ({ collection: FIXTURE_COLLECTION, docId: FIXTURE_HISTORY_DOC, version: '1' }),
    permitted: { GET: { status: 200, schema: 'DocumentBody' } },
  },
  restoreDocumentVersion: {
    arrange: async () => undefined,
    prepare: (api, tenantId, caseId) => addHistory(api, tenantId, restoredDoc(caseId)),
    params: (caseId) => ({ collection: FIXTURE_COLLECTION, docId: restoredDoc(caseId), version: '1' }),
    permitted: { POST: { status: 200, schema: 'DocumentBody' } },
    // Version 1 put back as version 3.
    wrote: async (api, tenantId, caseId) =>
      (await api.documents.read(tenantId, FIXTURE_COLLECTION, restoredDoc(caseId)))?.version === 3,
  },
  mcpBots: {
    arrange: (api, tenantId) => api.addDocument(tenantId, 'bots', FIXTURE_BOT, { name: 'Helper', owner: tenantId }),
    params: () => ({}),
    body: (caseId) => ({
      jsonrpc: '2.0',
      id: caseId,
      method: 'tools/call',
      params: { name: 'list_bots', arguments: { limit: 100 } },
    }),
    headers: mcpHeaders,
    permitted: {
      POST: { status: 200, schema: 'JsonRpcMessage' },
      // The stateless MCP endpoint answers the other declared methods itself.
      GET: { status: 405, schema: 'JsonRpcMessage' },
      DELETE: { status: 405, schema: 'JsonRpcMessage' },
    },
  },
  listAssistantConversations: {
    arrange: (api, tenantId) =>
      api.reportingRows.putRows(tenantId, 'assistant', [
        shapeRow('assistant', tenantId, { ID: FIXTURE_ROW, Datetime: Date.now() - HOUR, BotName: tenantId }),
      ]),
    params: () => ({}),
    permitted: { GET: { status: 200, schema: 'AssistantReportList' } },
  },
  listVocConversations: {
    arrange: (api, tenantId) =>
      api.reportingRows.putRows(tenantId, 'voc', [
        shapeRow('voc', tenantId, {
          ID: FIXTURE_ROW,
          Datetime: new Date(Date.now() - HOUR).toISOString(),
          Summary: tenantId,
        }),
      ]),
    params: () => ({}),
    permitted: { GET: { status: 200, schema: 'VocReportList' } },
  },
  createRecording: {
    arrange: async () => undefined,
    params: () => ({}),
    body: (caseId) => ({ fileName: `call-${caseId}.wav`, contentType: 'audio/wav', sizeBytes: 44 }),
    permitted: { POST: { status: 201, schema: 'RecordingUpload' } },
    wrote: async (api, tenantId, caseId) => {
      const { Items } = await documentClient().send(
        new ScanCommand({
          TableName: api.tables.vocJobs,
          FilterExpression: 'tenantId = :tenant AND fileName = :file',
          ExpressionAttributeValues: { ':tenant': tenantId, ':file': `call-${caseId}.wav` },
        }),
      );
      return (Items ?? []).length > 0;
    },
  },
  getVocJobStatus: {
    arrange: (api, tenantId) =>
      api.vocJobs.put(tenantId, {
        id: FIXTURE_JOB,
        status: 'started',
        started: Date.now() - HOUR,
        file: `recordings/${tenantId}/1.wav`,
        recordingId: 'rec-1',
      }),
    params: () => ({ jobId: FIXTURE_JOB }),
    permitted: { GET: { status: 200, schema: 'VocJobStatus' } },
  },
  createWebhookEndpoint: {
    arrange: async () => undefined,
    params: () => ({}),
    body: (caseId) => ({
      url: FIXTURE_RECEIVER,
      events: [FIXTURE_SUBSCRIPTION.event],
      description: `endpoint ${caseId}`,
    }),
    permitted: { POST: { status: 201, schema: 'CreatedWebhookEndpoint' } },
    subscribes: FIXTURE_SUBSCRIPTION,
    wrote: async (api, tenantId, caseId) =>
      (await api.webhookEndpoints.list(tenantId)).some((endpoint) => endpoint.description === `endpoint ${caseId}`),
  },
  listWebhookEndpoints: {
    arrange: (api, tenantId) => addEndpoint(api, tenantId, FIXTURE_ENDPOINT),
    params: () => ({}),
    permitted: { GET: { status: 200, schema: 'WebhookEndpointList' } },
  },
  getWebhookEndpoint: {
    arrange: (api, tenantId) => addEndpoint(api, tenantId, FIXTURE_ENDPOINT),
    params: () => ({ endpointId: FIXTURE_ENDPOINT }),
    permitted: { GET: { status: 200, schema: 'WebhookEndpoint' } },
  },
  updateWebhookEndpoint: {
    arrange: (api, tenantId) => addEndpoint(api, tenantId, FIXTURE_ENDPOINT),
    params: () => ({ endpointId: FIXTURE_ENDPOINT }),
    body: (caseId) => ({ description: `changed ${caseId}` }),
    permitted: { PATCH: { status: 200, schema: 'WebhookEndpoint' } },
    // Every change is checked against the events the endpoint keeps, a description's too.
    subscribes: FIXTURE_SUBSCRIPTION,
    // Each permitted change leaves its own description; a later one replaces it, so only the last shows.
    wrote: async (api, tenantId, caseId) =>
      (await api.webhookEndpoints.get(tenantId, FIXTURE_ENDPOINT))?.description === `changed ${caseId}`,
  },
  deleteWebhookEndpoint: {
    arrange: async () => undefined,
    prepare: async (api, tenantId, caseId) => {
      await addEndpoint(api, tenantId, deletedEndpoint(caseId));
      preparedDeletes.add(`${tenantId}/${caseId}`);
    },
    params: (caseId) => ({ endpointId: deletedEndpoint(caseId) }),
    permitted: { DELETE: { status: 204, schema: 'NoContent' } },
    wrote: async (api, tenantId, caseId) =>
      preparedDeletes.has(`${tenantId}/${caseId}`) &&
      (await api.webhookEndpoints.get(tenantId, deletedEndpoint(caseId))) === undefined,
  },
  rotateWebhookSecret: {
    arrange: (api, tenantId) => addEndpoint(api, tenantId, FIXTURE_ENDPOINT),
    prepare: async (api, tenantId, caseId) => {
      secretsBefore.set(
        `${tenantId}/${caseId}`,
        (await api.webhookEndpoints.get(tenantId, FIXTURE_ENDPOINT))?.secrets.current,
      );
    },
    params: () => ({ endpointId: FIXTURE_ENDPOINT }),
    permitted: { POST: { status: 200, schema: 'RotatedWebhookSecret' } },
    wrote: async (api, tenantId, caseId) => {
      const key = `${tenantId}/${caseId}`;
      return (
        secretsBefore.has(key) &&
        (await api.webhookEndpoints.get(tenantId, FIXTURE_ENDPOINT))?.secrets.current !== secretsBefore.get(key)
      );
    },
  },
  listWebhookDeliveries: {
    arrange: async (api, tenantId) => {
      await addEndpoint(api, tenantId, FIXTURE_ENDPOINT);
      await api.webhookDeliveries.record(
        tenantId,
        {
          endpointId: FIXTURE_ENDPOINT,
          at: new Date().toISOString(),
          messageId: 'msg_fixture',
          type: 'note.created',
          body: JSON.stringify({ tenantId }),
          status: 'failed',
          attempts: 1,
          lastError: `refused by ${tenantId}`,
        },
        Date.now(),
      );
    },
    params: () => ({ endpointId: FIXTURE_ENDPOINT }),
    permitted: { GET: { status: 200, schema: 'WebhookDeliveryList' } },
  },
  recoverWebhookDeliveries: {
    arrange: (api, tenantId) => addEndpoint(api, tenantId, FIXTURE_ENDPOINT),
    // A failed delivery of the case's own, of an event at the case's own time, which a recover since
    // then makes pending again; and the endpoint's last recover forgotten, since every case recovers
    // the same endpoint well within the interval between two recovers.
    prepare: async (api, tenantId, caseId) => {
      await forgetLastRecover(api.tables.webhookEndpoints, tenantId, FIXTURE_ENDPOINT);
      const at = new Date().toISOString();
      failedDeliveries.set(`${tenantId}/${caseId}`, at);
      await api.webhookDeliveries.record(
        tenantId,
        {
          endpointId: FIXTURE_ENDPOINT,
          at,
          messageId: `msg_recover-${caseId}`,
          type: 'voc.job.failed',
          body: JSON.stringify({ tenantId }),
          status: 'failed',
          attempts: 1,
        },
        Date.now(),
      );
    },
    params: () => ({ endpointId: FIXTURE_ENDPOINT }),
    // Without its own delivery (a request made without `prepare`), a time nothing is recovered since.
    body: (caseId, tenantId) => ({
      since: failedDeliveries.get(`${tenantId}/${caseId}`) ?? '2999-01-01T00:00:00.000Z',
    }),
    permitted: { POST: { status: 202, schema: 'RecoveredWebhookDeliveries' } },
    wrote: async (api, tenantId, caseId) => {
      const at = failedDeliveries.get(`${tenantId}/${caseId}`);
      if (at === undefined) return false;
      const delivery = await api.webhookDeliveries.get(tenantId, {
        endpointId: FIXTURE_ENDPOINT,
        at,
        messageId: `msg_recover-${caseId}`,
      });
      return delivery !== undefined && delivery.status !== 'failed';
    },
  },
} satisfies Record<RouteId, RouteFixture>;

export function fixtureOf(route: RouteSpec): RouteFixture {
  const fixture = (routeFixtures as Partial<Record<string, RouteFixture>>)[route.id];
  if (!fixture) throw new Error(`route ${route.id} has no fixture in test/support/route-fixtures.ts`);
  return fixture;
}

/** Every method the route table sends to the route's function. */
export function routeMethods(route: RouteSpec): HttpMethod[] {
  return [route.method, ...(route.otherMethods ?? [])];
}

/** Whether requests of `method` carry a body. */
export const sendsBody = (method: HttpMethod): boolean => method === 'POST' || method === 'PUT' || method === 'PATCH';

/**
 * The fixture's request for `method` on `tenantId`'s path, with what it alone addresses arranged.
 *
 * @example const call = await fixtureCall(api, route, tenant, 'GET', 'c1');
 */
export async function fixtureCall(
  api: TestApi,
  route: RouteSpec,
  tenantId: string,
  method: HttpMethod,
  caseId: string,
): Promise<RouteCall> {
  const fixture = fixtureOf(route);
  if (method === route.method) await fixture.prepare?.(api, tenantId, caseId);
  return {
    method,
    path: fillPath(route, { tenantId, ...fixture.params(caseId) }),
    ...(sendsBody(method) && fixture.body ? { body: fixture.body(caseId, tenantId) } : {}),
    ...(fixture.headers ? { headers: fixture.headers } : {}),
  };
}

/** The scope the route requires for the fixture's request (a collection template made concrete). */
export function fixtureScope(route: RouteSpec): string {
  return resolveScope(route.scope, fixtureOf(route).params('scope'));
}

/** Every route of the table, each with every method it declares. */
export function routeMethodPairs(): Array<{ route: RouteSpec; method: HttpMethod }> {
  return routes.flatMap((route) => routeMethods(route).map((method) => ({ route, method })));
}

/** Arranges every fixture's data under `tenantId`. */
export async function arrangeAll(api: TestApi, tenantId: string): Promise<void> {
  for (const route of routes) await fixtureOf(route).arrange(api, tenantId);
}
