/**
 * One permitted request per route of the route table, with the data that makes it succeed. The
 * authorization matrix, the hostile-input properties and the tenant-isolation test all build
 * their requests from here, so a route added to the table without a fixture fails their guards
 * (and does not compile: the map is typed by route id).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { resolveScope } from '#shared/auth/grant-scope';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { fillPath, type HttpMethod, type RouteId, type RouteSpec, routes } from '#shared/routes';
import type { SchemaId } from '#shared/schemas/schema-ids';
import { documentClient } from '#shared/store/dynamo-client';
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
  /** For routes that write: whether the request of `caseId` left its effect in the store. */
  wrote?(api: TestApi, tenantId: string, caseId: string): Promise<boolean>;
}

export const FIXTURE_CONVERSATION = 'conv-1';
export const FIXTURE_COLLECTION = 'users';
export const FIXTURE_DOC = 'doc-1';
export const FIXTURE_BOT = 'bot-1';
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

const mcpHeaders = { Accept: 'application/json, text/event-stream' };

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

/** The fixture's request for `method` on `tenantId`'s path. */
export function fixtureCall(route: RouteSpec, tenantId: string, method: HttpMethod, caseId: string): RouteCall {
  const fixture = fixtureOf(route);
  const sendsBody = method === 'POST' || method === 'PUT';
  return {
    method,
    path: fillPath(route, { tenantId, ...fixture.params(caseId) }),
    ...(sendsBody && fixture.body ? { body: fixture.body(caseId, tenantId) } : {}),
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
