/**
 * What `cxm smoke` asks a running API: one check per operation of the route table (two for the MCP
 * endpoint: tools/list and tools/call list_bots), the gateway's own answers (401 without a key,
 * 403 for a tenant the key does not hold, 404 for an unknown route); GET /openapi.json is checked
 * first, by the runner (run-smoke-checks.ts). Paths and scopes come from the route table.
 *
 * Two plans. With a seeded smoke tenant (--stage, or the local stack) the checks meet the rows the
 * CLI wrote just before: the open conversation takes a note (201), the smoke bot is listed, the
 * smoke job has a status. Against a tenant the CLI cannot write to (--url) they prove the same
 * operations without adding data: a note to a conversation that does not exist is 404 (the note
 * is written only with its conversation), so is the status of an unknown job, and documents
 * are written to the `cxm-smoke` collection only.
 */
import { isDeepStrictEqual } from 'node:util';
import type { HttpMethod } from '#shared/api/route-spec';
import { fillPath, type RouteId, routeById, routes } from '#shared/api/route-table';
import { resolveScope } from '#shared/auth/grant-scope';
import type { VocJob } from '#shared/domain/voc/job-status';

/** The provisioning collection the checks write to, in whatever tenant they run. */
export const SMOKE_COLLECTION = 'cxm-smoke';
/** The document of SMOKE_COLLECTION the checks overwrite on every run. */
export const SMOKE_DOCUMENT = 'smoke-check';

/** The rows of the smoke tenant the checks can rely on, written by the CLI before they run. */
export interface SmokeSeed {
  conversationId: string;
  botId: string;
  /** A disabled webhook endpoint (nothing is delivered to it). */
  endpointId: string;
  job: VocJob;
}

export interface SmokePlan {
  tenant: string;
  /** Absent when the CLI cannot write to the tenant (--url). */
  seed?: SmokeSeed;
  /** Unique per run: request ids, the ids that cannot exist, the smoke document's content. */
  runId: string;
}

export interface SmokeRequest {
  method: HttpMethod;
  /** Relative to the base URL, with the query. */
  path: string;
  /** Sends `Authorization: Bearer <key>`. */
  withKey: boolean;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The bodies of the checks run before, by check name (a check that got no JSON answer is absent). */
export type EarlierAnswers = ReadonlyMap<string, unknown>;

export interface SmokeCheck {
  name: string;
  /** The operation the check proves; absent for the gateway's own answers. */
  route?: RouteId;
  /**
   * The request; or how to make it from the answers before it (a version's number the list gave),
   * a string saying why it cannot be made when they lack what it needs.
   */
  request: SmokeRequest | ((earlier: EarlierAnswers) => SmokeRequest | string);
  expectStatus: readonly number[];
  /**
   * What is wrong with the body beyond its schema; undefined when it is right. Runs only on a body
   * of an expected status that passed the schema the OpenAPI document gives it.
   */
  inspect?: (body: unknown) => string | undefined;
}

/** The scopes a key needs for every check: each route's scope, with the smoke collection filled in. */
export function smokeScopes(): string[] {
  return [...new Set(routes.map((route) => resolveScope(route.scope, { collection: SMOKE_COLLECTION })))];
}

/** The check whose answer names the versions the checks after it read and restore. */
const LIST_VERSIONS = 'list document versions';

/** An entry of the versions list, as far as the checks read it. */
interface VersionEntry {
  version: number;
  change: string;
}

/** A job id no smoke run ever seeds: the 404 probe, and the job path when nothing was seeded. */
const absentId = (runId: string) => `cxm-smoke-absent-${runId}`;

const MCP_HEADERS = { Accept: 'application/json, text/event-stream' };

const expectCode = (code: string) => (body: unknown) => {
  const actual = (body as { code?: unknown }).code;
  return actual === code ? undefined : `code ${String(actual)}, expected ${code}`;
};

const expectEqual = (what: string, expected: unknown) => (body: unknown) =>
  isDeepStrictEqual(body, expected) ? undefined : `${what} differs: ${JSON.stringify(body).slice(0, 120)}`;

/** The JSON-RPC response's `result`, or why there is none. */
function rpcResult(body: unknown, id: string): { result: Record<string, unknown> } | { problem: string } {
  const message = body as { id?: unknown; result?: Record<string, unknown>; error?: { message?: unknown } };
  if (message.id !== id)
    return { problem: `JSON-RPC id ${JSON.stringify(message.id)}, expected ${JSON.stringify(id)}` };
  if (!message.result) return { problem: `JSON-RPC error: ${String(message.error?.message)}` };
  return { result: message.result };
}

/** The checks of each operation, in the order they run; a route without checks does not compile. */
function routeChecks({ tenant, seed, runId }: SmokePlan): Record<RouteId, SmokeCheck[]> {
  const at = (id: RouteId, params: Record<string, string> = {}, query = '') =>
    fillPath(routeById(id), { tenantId: tenant, ...params }) + query;
  const absent = absentId(runId);
  const document = { smoke: true, run: runId, kept: { a: 1, b: 2 } };
  const patch = { kept: { b: null, c: 3 } };
  const merged = { smoke: true, run: runId, kept: { a: 1, c: 3 } };
  const documentPath = at('replaceCurrentDocument', { collection: SMOKE_COLLECTION, docId: SMOKE_DOCUMENT });
  /** The version before the newest the versions list gave (this run's replace), as `method` addresses it. */
  const versionRequest = (earlier: EarlierAnswers, method: HttpMethod, suffix: string): SmokeRequest | string => {
    const replaced = (earlier.get(LIST_VERSIONS) as VersionEntry[] | undefined)?.[1];
    if (replaced === undefined) return `not run: '${LIST_VERSIONS}' gave no version to address`;
    const path = at('getDocumentVersion', {
      collection: SMOKE_COLLECTION,
      docId: SMOKE_DOCUMENT,
      version: String(replaced.version),
    });
    return { method, path: `${path}${suffix}`, withKey: true };
  };
  const toolsListId = `smoke-${runId}-tools-list`;
  const listBotsId = `smoke-${runId}-list-bots`;

  return {
    addInternalNote: [
      seed
        ? {
            name: 'add internal note',
            route: 'addInternalNote',
            request: {
              method: 'POST',
              path: at('addInternalNote', { conversationId: seed.conversationId }),
              withKey: true,
              body: { body: `cxm smoke run ${runId}` },
            },
            expectStatus: [201],
          }
        : {
            name: 'internal note, no such conversation',
            route: 'addInternalNote',
            request: {
              method: 'POST',
              path: at('addInternalNote', { conversationId: absent }),
              withKey: true,
              body: { body: `cxm smoke run ${runId}` },
            },
            expectStatus: [404],
            inspect: expectCode('NotFound'),
          },
    ],
    mcpBots: [
      {
        name: 'MCP tools/list',
        route: 'mcpBots',
        request: {
          method: 'POST',
          path: at('mcpBots'),
          withKey: true,
          headers: MCP_HEADERS,
          body: { jsonrpc: '2.0', id: toolsListId, method: 'tools/list' },
        },
        expectStatus: [200],
        inspect: (body) => {
          const answer = rpcResult(body, toolsListId);
          if ('problem' in answer) return answer.problem;
          const tools: unknown = answer.result.tools;
          return Array.isArray(tools) && tools.some((tool) => (tool as { name?: unknown }).name === 'list_bots')
            ? undefined
            : 'no list_bots tool listed';
        },
      },
      {
        name: 'MCP tools/call list_bots',
        route: 'mcpBots',
        request: {
          method: 'POST',
          path: at('mcpBots'),
          withKey: true,
          headers: MCP_HEADERS,
          body: {
            jsonrpc: '2.0',
            id: listBotsId,
            method: 'tools/call',
            params: { name: 'list_bots', arguments: { limit: 10 } },
          },
        },
        expectStatus: [200],
        inspect: (body) => {
          const answer = rpcResult(body, listBotsId);
          if ('problem' in answer) return answer.problem;
          if (answer.result.isError === true)
            return `the tool failed: ${JSON.stringify(answer.result.content).slice(0, 120)}`;
          const bots: unknown = (answer.result.structuredContent as { bots?: unknown } | undefined)?.bots;
          if (!Array.isArray(bots)) return 'no structuredContent.bots list';
          return seed && !bots.some((bot) => (bot as { id?: unknown }).id === seed.botId)
            ? `bot ${seed.botId} is not listed`
            : undefined;
        },
      },
    ],
    replaceCurrentDocument: [
      {
        name: 'replace document',
        route: 'replaceCurrentDocument',
        request: { method: 'POST', path: documentPath, withKey: true, body: document },
        expectStatus: [201, 200],
        inspect: expectEqual('the stored document', document),
      },
    ],
    mergeCurrentDocument: [
      {
        name: 'merge document',
        route: 'mergeCurrentDocument',
        request: { method: 'PUT', path: documentPath, withKey: true, body: patch },
        expectStatus: [200],
        inspect: expectEqual('the merged document', merged),
      },
    ],
    getCurrentDocument: [
      {
        name: 'get document',
        route: 'getCurrentDocument',
        request: { method: 'GET', path: documentPath, withKey: true },
        expectStatus: [200],
        inspect: expectEqual('the document', merged),
      },
    ],
    listDocuments: [
      {
        name: 'list documents',
        route: 'listDocuments',
        request: { method: 'GET', path: at('listDocuments', { collection: SMOKE_COLLECTION }), withKey: true },
        expectStatus: [200],
        inspect: (body) => {
          const entry = (body as { id: string; data: unknown }[]).find((candidate) => candidate.id === SMOKE_DOCUMENT);
          if (!entry) return `${SMOKE_DOCUMENT} is not listed`;
          return expectEqual(`the listed ${SMOKE_DOCUMENT}`, merged)(entry.data);
        },
      },
    ],
    listDocumentVersions: [
      {
        name: LIST_VERSIONS,
        route: 'listDocumentVersions',
        request: {
          method: 'GET',
          path: at('listDocumentVersions', { collection: SMOKE_COLLECTION, docId: SMOKE_DOCUMENT }, '?limit=2'),
          withKey: true,
        },
        expectStatus: [200],
        // This run's replace and merge, the newest two: numbered one after the other.
        inspect: (body) => {
          const [newest, before] = body as VersionEntry[];
          if (newest?.change !== 'merged' || before === undefined) return "the newest version is not this run's merge";
          return newest.version === before.version + 1 ? undefined : 'the newest two versions are not consecutive';
        },
      },
    ],
    getDocumentVersion: [
      {
        name: 'get the version the replace made',
        route: 'getDocumentVersion',
        request: (earlier) => versionRequest(earlier, 'GET', ''),
        expectStatus: [200],
        inspect: expectEqual('the version', document),
      },
    ],
    restoreDocumentVersion: [
      {
        name: 'restore the version the replace made',
        route: 'restoreDocumentVersion',
        request: (earlier) => versionRequest(earlier, 'POST', '/restore'),
        expectStatus: [200],
        inspect: expectEqual('the restored document', document),
      },
    ],
    listAssistantConversations: [
      {
        name: 'assistant conversations',
        route: 'listAssistantConversations',
        request: {
          method: 'GET',
          path: at('listAssistantConversations', {}, '?range=last_day&limit=5'),
          withKey: true,
        },
        expectStatus: [200],
      },
    ],
    listVocConversations: [
      {
        name: 'VOC conversations',
        route: 'listVocConversations',
        request: { method: 'GET', path: at('listVocConversations', {}, '?range=last_day&limit=5'), withKey: true },
        expectStatus: [200],
      },
    ],
    createRecording: [
      seed
        ? {
            name: 'VOC recording upload',
            route: 'createRecording',
            request: {
              method: 'POST',
              path: at('createRecording'),
              withKey: true,
              body: { fileName: `cxm-smoke-${runId}.wav`, contentType: 'audio/wav', sizeBytes: 44 },
            },
            expectStatus: [201],
            inspect: (body) => {
              const { upload } = body as { upload: { headers: Record<string, string> } };
              return upload.headers['Content-Type'] === 'audio/wav' &&
                upload.headers['Content-Length'] === '44' &&
                upload.headers['If-None-Match'] === '*'
                ? undefined
                : `upload headers ${JSON.stringify(upload.headers)}`;
            },
          }
        : {
            // Not the smoke tenant: a size no stage accepts (over S3's 5 GB for one PUT) proves the
            // route without starting a job in the tenant.
            name: 'VOC recording upload, over the size limit',
            route: 'createRecording',
            request: {
              method: 'POST',
              path: at('createRecording'),
              withKey: true,
              body: { fileName: `cxm-smoke-${runId}.wav`, contentType: 'audio/wav', sizeBytes: 5_000_000_001 },
            },
            expectStatus: [400],
            inspect: expectCode('BadRequest'),
          },
    ],
    getVocJobStatus: [
      seed
        ? {
            name: 'VOC job status',
            route: 'getVocJobStatus',
            request: { method: 'GET', path: at('getVocJobStatus', { jobId: seed.job.id }), withKey: true },
            expectStatus: [200],
            inspect: expectEqual('the job', seed.job),
          }
        : {
            name: 'VOC job status, no such job',
            route: 'getVocJobStatus',
            request: { method: 'GET', path: at('getVocJobStatus', { jobId: absent }), withKey: true },
            expectStatus: [404],
            inspect: expectCode('NotFound'),
          },
    ],
    createWebhookEndpoint: [
      {
        // Registering one would leave it behind (its id is the server's): a refused target proves
        // the route, its URL check and its error without adding an endpoint.
        name: 'register webhook endpoint, a private address refused',
        route: 'createWebhookEndpoint',
        request: {
          method: 'POST',
          path: at('createWebhookEndpoint'),
          withKey: true,
          body: { url: 'https://10.0.0.1/cxm-smoke', events: ['note.created'] },
        },
        expectStatus: [400],
        inspect: (body) =>
          expectCode('BadRequest')(body) ??
          (String((body as { message?: unknown }).message).includes('10.0.0.1')
            ? undefined
            : 'the refusal does not name the address'),
      },
    ],
    listWebhookEndpoints: [
      {
        name: 'list webhook endpoints',
        route: 'listWebhookEndpoints',
        request: { method: 'GET', path: at('listWebhookEndpoints'), withKey: true },
        expectStatus: [200],
        inspect: (body) => {
          const listed = (body as { data: { id: string; secret?: unknown }[] }).data;
          if (listed.some((endpoint) => endpoint.secret !== undefined)) return 'a listed endpoint shows its secret';
          return seed && !listed.some((endpoint) => endpoint.id === seed.endpointId)
            ? `endpoint ${seed.endpointId} is not listed`
            : undefined;
        },
      },
    ],
    getWebhookEndpoint: [
      {
        name: seed ? 'get webhook endpoint' : 'webhook endpoint, no such endpoint',
        route: 'getWebhookEndpoint',
        request: {
          method: 'GET',
          path: at('getWebhookEndpoint', { endpointId: seed?.endpointId ?? absent }),
          withKey: true,
        },
        expectStatus: [seed ? 200 : 404],
        inspect: seed
          ? (body) =>
              (body as { status?: unknown }).status === 'disabled' ? undefined : 'the smoke endpoint is not disabled'
          : expectCode('NotFound'),
      },
    ],
    updateWebhookEndpoint: [
      {
        name: seed ? 'change webhook endpoint' : 'change webhook endpoint, no such endpoint',
        route: 'updateWebhookEndpoint',
        request: {
          method: 'PATCH',
          path: at('updateWebhookEndpoint', { endpointId: seed?.endpointId ?? absent }),
          withKey: true,
          body: { description: `cxm smoke run ${runId}` },
        },
        expectStatus: [seed ? 200 : 404],
        inspect: seed
          ? (body) => {
              const changed = body as { description?: unknown; status?: unknown };
              if (changed.description !== `cxm smoke run ${runId}`) return 'the description was not changed';
              return changed.status === 'disabled' ? undefined : 'the change enabled the smoke endpoint';
            }
          : expectCode('NotFound'),
      },
    ],
    rotateWebhookSecret: [
      {
        name: seed ? 'rotate webhook secret' : 'rotate webhook secret, no such endpoint',
        route: 'rotateWebhookSecret',
        request: {
          method: 'POST',
          path: at('rotateWebhookSecret', { endpointId: seed?.endpointId ?? absent }),
          withKey: true,
        },
        expectStatus: [seed ? 200 : 404],
        inspect: seed ? undefined : expectCode('NotFound'),
      },
    ],
    listWebhookDeliveries: [
      {
        name: seed ? 'webhook deliveries' : 'webhook deliveries, no such endpoint',
        route: 'listWebhookDeliveries',
        request: {
          method: 'GET',
          path: at('listWebhookDeliveries', { endpointId: seed?.endpointId ?? absent }, '?limit=5'),
          withKey: true,
        },
        expectStatus: [seed ? 200 : 404],
        inspect: seed ? undefined : expectCode('NotFound'),
      },
    ],
    recoverWebhookDeliveries: [
      {
        // The smoke endpoint is disabled, so that nothing is ever sent to it: recovering refuses.
        name: seed ? 'recover webhook deliveries, endpoint disabled' : 'recover webhook deliveries, no such endpoint',
        route: 'recoverWebhookDeliveries',
        request: {
          method: 'POST',
          path: at('recoverWebhookDeliveries', { endpointId: seed?.endpointId ?? absent }),
          withKey: true,
          body: { since: new Date(Date.now() - 3_600_000).toISOString() },
        },
        expectStatus: [seed ? 409 : 404],
        inspect: expectCode(seed ? 'Conflict' : 'NotFound'),
      },
    ],
    deleteWebhookEndpoint: [
      {
        // The smoke endpoint stays for the next run: an endpoint that does not exist proves the route.
        name: 'delete webhook endpoint, no such endpoint',
        route: 'deleteWebhookEndpoint',
        request: { method: 'DELETE', path: at('deleteWebhookEndpoint', { endpointId: absent }), withKey: true },
        expectStatus: [404],
        inspect: expectCode('NotFound'),
      },
    ],
  };
}

/** Every check after the OpenAPI document, in the order they run. */
export function smokeChecks(plan: SmokePlan): SmokeCheck[] {
  const jobPath = (tenantId: string) =>
    fillPath(routeById('getVocJobStatus'), { tenantId, jobId: plan.seed?.job.id ?? absentId(plan.runId) });
  const gatewayChecks: SmokeCheck[] = [
    {
      name: '401 without a key',
      request: { method: 'GET', path: jobPath(plan.tenant), withKey: false },
      expectStatus: [401],
      inspect: expectCode('Unauthenticated'),
    },
    {
      name: '403 for a tenant not held',
      // The identifier rules: any tenant the key does not hold is 403, whether or not it exists.
      request: { method: 'GET', path: jobPath(`cxm-smoke-not-held-${plan.runId}`), withKey: true },
      expectStatus: [403],
      inspect: expectCode('PermissionDenied'),
    },
    {
      name: '404 for an unknown route',
      request: { method: 'GET', path: `/api/v1/cxm-smoke/no-such-route-${plan.runId}`, withKey: false },
      expectStatus: [404],
      inspect: expectCode('NotFound'),
    },
  ];
  return [...gatewayChecks, ...Object.values(routeChecks(plan)).flat()];
}
