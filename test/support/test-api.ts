/**
 * A local gateway over real HTTP on a free port, backed by the run's DynamoDB Local, plus the
 * stores to arrange data with. Every test makes its own tenants, so files run side by side.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { RateLimit } from '#infra/cdk/stage/default-rate-limits';
import { pointAtLocalOpenSearch } from '#infra/local/emulators/opensearch/local-opensearch';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { bindGateway } from '#infra/local/serve-gateway';
import { issueKey } from '#shared/auth/issue-key';
import { type Conversation, conversationWithDefaults } from '#shared/domain/notes/conversation';
import { validatorFor } from '#shared/http/validator-for';
import { buildOpenApiDocument } from '#shared/openapi/build-openapi-document';
import { OpenApiContract } from '#shared/openapi/check-response';
import type { OpenApiDocument } from '#shared/openapi/openapi-types';
import { documentClient } from '#shared/store/dynamo-client';
import { bindTableStores } from '#shared/store/table-stores';
import { runOpenSearch } from './run-opensearch.ts';
import { TEST_KEY_TAG_SECRET } from './test-env.ts';
import { tablesOfItsOwn, workerDynamo } from './worker-dynamo.ts';

const COMPILED_CONTRACTS = Symbol.for('cxm.test.compiled-openapi-contracts');

/** The OpenSearch layout every gateway of the run shares, as a stage's tenants share one: tenants keep them apart. */
export const TEST_INDEX_PREFIX = 'cxm-test-reporting';

/**
 * The contract every response of the test gateways is held to, compiled once per process and
 * document: a worker that runs several files in one process (test/vitest.config.ts) loads this
 * module afresh for each, and compiling every response schema costs 60-160 ms.
 */
const contract = compiledContract(buildOpenApiDocument());

function compiledContract(document: OpenApiDocument): OpenApiContract {
  const held = globalThis as { [COMPILED_CONTRACTS]?: Map<string, OpenApiContract> };
  held[COMPILED_CONTRACTS] ??= new Map();
  const contracts = held[COMPILED_CONTRACTS];
  const key = JSON.stringify(document);
  let found = contracts.get(key);
  if (!found) {
    found = new OpenApiContract(document);
    contracts.set(key, found);
  }
  return found;
}

/**
 * Fails the test when the OpenAPI document does not describe the response: an undocumented
 * operation or status, a missing documented header, a body off its schema. A drift fails the build.
 */
export function expectDocumented(method: string, url: string, response: Response, bodyText: string): void {
  const problems = contract.check({ method, url, status: response.status, headers: response.headers, bodyText });
  expect(problems, 'the response is not what the OpenAPI document describes').toEqual([]);
}

/** `fetch`, with every response checked against the OpenAPI document (its body stays readable). */
export async function documentedFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  expectDocumented(init.method ?? 'GET', String(url), response, await response.clone().text());
  return response;
}

/**
 * Every note response must match the contract: the note schema on 201, else the error schema
 * (exactly `{code, message}` with a code from the spec's list).
 */
export function expectContractBody(status: number, body: unknown): void {
  const validate = validatorFor(status === 201 ? 'InternalNoteResponse' : 'ErrorBody');
  expect(
    validate(body),
    `${status} body ${JSON.stringify(body)} breaks the contract: ${JSON.stringify(validate.errors)}`,
  ).toBe(true);
}

export function uniqueTenant(prefix = 't'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function startTestApi(
  options: {
    /**
     * Seconds the gateway caches an authorizer result; default the deployed stage's (60 s, the
     * template's in bundle mode). A file that revokes, expires or retags a key and expects the
     * next request refused asks for 0.
     */
    authCacheTtlSeconds?: number;
    rateLimit?: RateLimit;
    stageRateLimit?: RateLimit;
    /**
     * `read` for a file that asserts deliveries of events: the table streams are read as on a
     * stage, from tables of the gateway's own (tablesOfItsOwn).
     */
    webhookStreams?: 'read' | 'off';
    /**
     * Where the reporting lists search: `opensearch` points the gateway's functions at the run's
     * engine, with the indexer reading tables of the gateway's own; default the process's
     * CXM_REPORTING_BACKEND (a project's), else DynamoDB.
     */
    reportingBackend?: 'dynamodb' | 'opensearch';
    /** The OpenSearch layout's prefix, for a file that changes the layout itself; default the run's shared one. */
    indexPrefix?: string;
    /** Another engine than the run's (one a file stops and starts), accepting the run's key. */
    opensearchEndpoint?: string;
    /** What the gateway reports: a function's fault, and the local pipeline's (a task given up, a stream batch dropped). */
    onFault?: (error: unknown) => void;
  } = {},
) {
  const { endpoint, credentials, tables: shared } = workerDynamo();
  const searching = (options.reportingBackend ?? process.env.CXM_REPORTING_BACKEND) === 'opensearch';
  // A gateway that reads streams reads tables of its own: the shared ones carry every file's writes.
  const tables =
    options.webhookStreams === 'read' || searching ? await tablesOfItsOwn(searching ? 'search' : 'hooks') : shared;
  pointAtLocalDynamo({ endpoint, credentials }, tables);
  const engine = runOpenSearch(options.opensearchEndpoint);
  const indexPrefix = options.indexPrefix ?? TEST_INDEX_PREFIX;
  if (searching) pointAtLocalOpenSearch(engine.endpoint, indexPrefix);
  const gateway = await bindGateway(0);
  // No throttling unless a test asks for it: suites fire many requests with one key.
  await gateway.serve({
    authCacheTtlSeconds: options.authCacheTtlSeconds,
    rateLimit: options.rateLimit,
    stageRateLimit: options.stageRateLimit,
    webhookStreams: options.webhookStreams,
    onFault: options.onFault,
  });
  const { keys, conversations, documents, vocJobs, reportingRows, webhookEndpoints, webhookDeliveries } =
    bindTableStores(documentClient(), tables);

  return {
    url: gateway.url,
    keys,
    conversations,
    documents,
    vocJobs,
    reportingRows,
    webhookEndpoints,
    webhookDeliveries,
    tables,
    /** The store and the credentials that reach its tables. */
    dynamo: { endpoint, credentials },
    /** Where the lists search: `opensearch` or `dynamodb`. */
    reportingBackend: searching ? ('opensearch' as const) : ('dynamodb' as const),
    /** The engine the lists search and the layout's prefix, when they search one (what local.json says of it). */
    opensearch: searching
      ? { endpoint: engine.endpoint, version: engine.version, indexPrefix, credentials: engine.credentials }
      : undefined,
    /**
     * Resolves once every row written so far is searchable: at once on DynamoDB; on OpenSearch once
     * the indexer has had every stream record and the engine has refreshed (a stage's refresh
     * interval is a second; a test does not wait for it).
     */
    async indexed(): Promise<void> {
      if (!searching) return;
      await gateway.streamsCaughtUp();
      await engine.client.request({ method: 'POST', path: `/${indexPrefix}-*/_refresh` });
    },
    close: () => gateway.close(),
    /** A raw request whose response must be what the OpenAPI document describes. */
    fetch: documentedFetch,

    /** A key as `cxm keys create` issues it: tagged under the gateway's current key-tag secret, unless `tagSecret` says another. */
    async createKey(
      tenants: string[],
      scopes: string[],
      extra: { expiresAt?: string; tagSecret?: string } = {},
    ): Promise<{ key: string; keyId: string }> {
      const { key, stored } = await issueKey(
        keys,
        { tenants, scopes, name: 'test', expiresAt: extra.expiresAt },
        { tagSecret: extra.tagSecret ?? TEST_KEY_TAG_SECRET },
      );
      return { key, keyId: stored.keyId };
    },

    async addConversation(tenantId: string, fields: Partial<Conversation> & { id: string }): Promise<void> {
      await conversations.putConversation(tenantId, conversationWithDefaults(fields));
    },

    /**
     * Any request. `body` is sent as-is when a string, else JSON-encoded; the response must be what
     * the OpenAPI document describes for it.
     */
    async call(
      method: string,
      path: string,
      key: string | undefined,
      options: { body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
      const response = await documentedFetch(`${gateway.url}${path}`, {
        method,
        headers: {
          ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }),
          ...options.headers,
        },
        body:
          options.body === undefined
            ? undefined
            : typeof options.body === 'string'
              ? options.body
              : JSON.stringify(options.body),
      });
      const text = await response.text();
      const json = text === '' ? undefined : (JSON.parse(text) as unknown);
      return { status: response.status, headers: response.headers, text, json };
    },

    async addDocument(tenantId: string, collection: string, id: string, data: Record<string, unknown>): Promise<void> {
      await documents.replace(tenantId, collection, id, JSON.stringify(data));
    },

    notePath(tenantId: string, conversationId: string): string {
      return `${gateway.url}/api/v1/cxm/tenants/${tenantId}/conversations/${conversationId}/internal-notes`;
    },

    /** POSTs a note; `body` is sent as-is when a string, else JSON-encoded. */
    async postNote(
      tenantId: string,
      conversationId: string,
      key: string | undefined,
      body: unknown = { body: 'A note' },
      headers: Record<string, string> = {},
    ): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
      const response = await documentedFetch(this.notePath(tenantId, conversationId), {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }),
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      const json = JSON.parse(text) as Record<string, unknown>;
      expectContractBody(response.status, json);
      return { status: response.status, headers: response.headers, json };
    },
  };
}

export type TestApi = Awaited<ReturnType<typeof startTestApi>>;
