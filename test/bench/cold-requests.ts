/**
 * The first request of each bundle in the cold-start section: what a fresh process answers right
 * after its import, against DynamoDB Local (and, for the lists of an OpenSearch stage, the
 * OpenSearch stub over loopback HTTPS), with the data it reads arranged beforehand.
 *
 * The baseline and every peer make the baseline's request (GET the bench bot document), which is
 * also what getCurrentDocument serves, so that row compares like with like. Every other function
 * makes a typical successful request of its own route; the stream functions serve none. Each
 * process gets the environment a deployed function gets (tables, region, credentials as Lambda
 * passes them, in variables, the cursor secret's ARN), pointed at the local parts: the lists ask
 * for a page short of their rows, so they sign a cursor with the keys they read through the local
 * Secrets Manager stand-in, as bundle mode runs them; a list of an OpenSearch stage searches the
 * OpenSearch stub over HTTPS, so it signs as deployed.
 *
 * Only getCurrentDocument's request is the peers' own: the other rows' first requests do their
 * route's work (a transaction, a list's count queries, no store call at all for the OpenAPI
 * document), so their ratios also measure that work, not the chain alone.
 */

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { OPENAPI_DOCUMENT_OPERATION } from '#infra/cdk/constructs/api-docs';
import type { LocalDynamoConnection } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { startLocalSecretsManager } from '#infra/local/emulators/local-secrets-manager';
import { buildAuthorizerEvent, buildProxyEvent } from '#infra/local/gateway/build-proxy-event';
import { AUTHORIZER_HANDLER } from '#shared/api/route-spec';
import type { RouteId } from '#shared/api/route-table';
import { routeById } from '#shared/api/route-table';
import { issueKey } from '#shared/auth/issue-key';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import { REPORT_KINDS, type ReportKind } from '#shared/domain/reporting/report-cursor';
import { type ShapedRow, shapeRow } from '#shared/domain/reporting/report-rows';
import { sealingPublicKeyText } from '#shared/domain/webhooks/sealed-secret';
import { MAX_ENDPOINTS_PER_TENANT_LIMIT } from '#shared/domain/webhooks/webhook-endpoint';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { documentClient } from '#shared/store/dynamo-client';
import { allTableSpecs, type TableId } from '#shared/store/table-specs';
import { bindTableStores } from '#shared/store/table-stores';
import { searchAnswer } from '#test/support/opensearch-recorded-responses';
import { type OpenSearchStub, startOpenSearchStub } from '#test/support/opensearch-stub';
import {
  BENCH_COLLECTION,
  BENCH_DOC_ID,
  BENCH_DOCUMENT,
  BENCH_TENANT,
  benchRequestParts,
  type RouteRequest,
  routeEvent,
} from './bench-requests.ts';
import type { BuiltBundle } from './measure-bundles.ts';

/** What a first request must answer: an HTTP status, or the authorizer's Allow. */
export type ColdAnswer = number | 'Allow';

export interface ColdRequest {
  /** The event, as JSON (it travels to the process in an environment variable). */
  event: string;
  accepted: readonly ColdAnswer[];
}

const SCOPES = [
  `provisioning:${BENCH_COLLECTION}.read`,
  `provisioning:${BENCH_COLLECTION}.write`,
  'cxm:conversations.write',
  'mcp:bots.read',
  'reporting:assistant.read',
  'reporting:voc.read',
  'voc:recordings.write',
  'voc:recordings.read',
  'webhooks:endpoints.read',
  'webhooks:endpoints.write',
];
/** The endpoint the webhook rows read, change, rotate and (once) delete. */
const ENDPOINT = 'ep_bench-cold';
const endpointPath = (suffix = '') => `/api/v1/webhooks/tenants/${BENCH_TENANT}/endpoints${suffix}`;
const endpointParameters = { tenantId: BENCH_TENANT, endpointId: ENDPOINT };
const CONVERSATION = 'bench-cold-conv';
const VOC_JOB = 'bench-cold-job';
/** Replaced by each cold replace, so the bench document that others read stays as it is. */
const REPLACED_DOC = 'bench-cold-replaced';
/** A document of two versions: the version rows read the first, and the restore puts it back. */
const HISTORY_DOC = 'bench-cold-history';
const versionsPath = (suffix: string) =>
  `/api/v1/provisioning/tenants/${BENCH_TENANT}/${BENCH_COLLECTION}/${HISTORY_DOC}/versions${suffix}`;
const REPORT_ROWS = 20;
const REPORT_PAGE = 10;
const CURSOR_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:cxm-bench-cursor-secret-AbCdEf';
const KEY_TAG_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:cxm-bench-key-tag-secret-AbCdEf';
const WEBHOOK_SECRET_KEY_ARN =
  'arn:aws:secretsmanager:us-east-1:000000000000:secret:cxm-bench-webhook-secret-key-AbCdEf';

const documentPath = (docId: string) =>
  `/api/v1/provisioning/tenants/${BENCH_TENANT}/${BENCH_COLLECTION}/${docId}/versions/current`;
const documentParameters = (docId: string) => ({ tenantId: BENCH_TENANT, collection: BENCH_COLLECTION, docId });
const tenantParameters = { tenantId: BENCH_TENANT };

/** One typical successful request per route; a route added to the table must be added here. */
const ROUTE_REQUESTS: Record<RouteId, { request: Omit<RouteRequest, 'scopes'>; accepted: number[] }> = {
  addInternalNote: {
    request: {
      method: 'POST',
      path: `/api/v1/cxm/tenants/${BENCH_TENANT}/conversations/${CONVERSATION}/internal-notes`,
      pathParameters: { tenantId: BENCH_TENANT, conversationId: CONVERSATION },
      body: JSON.stringify({ body: 'Customer called back about the duplicate charge; refund issued.' }),
    },
    accepted: [201],
  },
  listDocuments: {
    request: {
      method: 'GET',
      path: `/api/v1/provisioning/tenants/${BENCH_TENANT}/${BENCH_COLLECTION}`,
      pathParameters: { tenantId: BENCH_TENANT, collection: BENCH_COLLECTION },
    },
    accepted: [200],
  },
  getCurrentDocument: {
    request: { method: 'GET', path: documentPath(BENCH_DOC_ID), pathParameters: documentParameters(BENCH_DOC_ID) },
    accepted: [200],
  },
  replaceCurrentDocument: {
    request: {
      method: 'POST',
      path: documentPath(REPLACED_DOC),
      pathParameters: documentParameters(REPLACED_DOC),
      body: JSON.stringify(BENCH_DOCUMENT),
    },
    // 201 the first time the document is made, 200 after.
    accepted: [200, 201],
  },
  mergeCurrentDocument: {
    request: {
      method: 'PUT',
      path: documentPath(BENCH_DOC_ID),
      pathParameters: documentParameters(BENCH_DOC_ID),
      body: JSON.stringify({ language: 'en' }),
    },
    accepted: [200],
  },
  listDocumentVersions: {
    request: { method: 'GET', path: versionsPath(''), pathParameters: documentParameters(HISTORY_DOC) },
    accepted: [200],
  },
  getDocumentVersion: {
    request: {
      method: 'GET',
      path: versionsPath('/1'),
      pathParameters: { ...documentParameters(HISTORY_DOC), version: '1' },
    },
    accepted: [200],
  },
  restoreDocumentVersion: {
    request: {
      method: 'POST',
      path: versionsPath('/1/restore'),
      pathParameters: { ...documentParameters(HISTORY_DOC), version: '1' },
    },
    accepted: [200],
  },
  mcpBots: {
    // The bot reads its tenant's bots: the MCP form of the baseline's read.
    request: {
      method: 'POST',
      path: `/api/v1/mcp/tenants/${BENCH_TENANT}/bots`,
      pathParameters: tenantParameters,
      headers: ['Accept', 'application/json, text/event-stream'],
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_bots', arguments: {} },
      }),
    },
    accepted: [200],
  },
  // A page short of the rows, so it signs a cursor with the keys it reads from Secrets Manager, as an export's first page does.
  listAssistantConversations: {
    request: {
      method: 'GET',
      path: `/api/v1/reporting/tenants/${BENCH_TENANT}/assistant/conversations`,
      pathParameters: tenantParameters,
      query: `range=last_day&limit=${REPORT_PAGE}`,
    },
    accepted: [200],
  },
  listVocConversations: {
    request: {
      method: 'GET',
      path: `/api/v1/reporting/tenants/${BENCH_TENANT}/voc/conversations`,
      pathParameters: tenantParameters,
      query: `range=last_day&limit=${REPORT_PAGE}`,
    },
    accepted: [200],
  },
  createRecording: {
    request: {
      method: 'POST',
      path: `/api/v1/voc/tenants/${BENCH_TENANT}/recordings`,
      pathParameters: tenantParameters,
      body: JSON.stringify({ fileName: 'call-2026-11-25.mp3', contentType: 'audio/mpeg', sizeBytes: 2_400_000 }),
    },
    accepted: [201],
  },
  getVocJobStatus: {
    request: {
      method: 'GET',
      path: `/api/v1/voc/tenants/${BENCH_TENANT}/recording/${VOC_JOB}/status`,
      pathParameters: { tenantId: BENCH_TENANT, jobId: VOC_JOB },
    },
    accepted: [200],
  },
  createWebhookEndpoint: {
    // An address literal: the bench resolves no names, and a stage's rules take a public address.
    request: {
      method: 'POST',
      path: endpointPath(),
      pathParameters: tenantParameters,
      body: JSON.stringify({ url: 'https://93.184.215.14/cxm', events: ['note.created'] }),
    },
    accepted: [201],
  },
  listWebhookEndpoints: {
    request: { method: 'GET', path: endpointPath(), pathParameters: tenantParameters },
    accepted: [200],
  },
  getWebhookEndpoint: {
    request: { method: 'GET', path: endpointPath(`/${ENDPOINT}`), pathParameters: endpointParameters },
    accepted: [200],
  },
  updateWebhookEndpoint: {
    request: {
      method: 'PATCH',
      path: endpointPath(`/${ENDPOINT}`),
      pathParameters: endpointParameters,
      body: JSON.stringify({ description: 'Support tooling' }),
    },
    accepted: [200],
  },
  rotateWebhookSecret: {
    request: { method: 'POST', path: endpointPath(`/${ENDPOINT}/rotate-secret`), pathParameters: endpointParameters },
    accepted: [200],
  },
  listWebhookDeliveries: {
    request: {
      method: 'GET',
      path: endpointPath(`/${ENDPOINT}/deliveries`),
      pathParameters: endpointParameters,
      query: 'limit=10',
    },
    accepted: [200],
  },
  recoverWebhookDeliveries: {
    // The first run recovers the endpoint; the later ones, within the interval between two
    // recovers, make the same conditional write and are refused it.
    request: {
      method: 'POST',
      path: endpointPath(`/${ENDPOINT}/recover`),
      pathParameters: endpointParameters,
      body: JSON.stringify({ since: '2026-01-01T00:00:00Z' }),
    },
    accepted: [202, 429],
  },
  deleteWebhookEndpoint: {
    // The first run deletes the endpoint; the later ones make the same transaction and find it gone.
    request: {
      method: 'DELETE',
      path: endpointPath(`/${ENDPOINT}-deleted`),
      pathParameters: { ...endpointParameters, endpointId: `${ENDPOINT}-deleted` },
    },
    accepted: [204, 404],
  },
};

/** A throwaway key and certificate for 127.0.0.1 (openssl), trusted by the measured processes through NODE_EXTRA_CA_CERTS. */
function selfSignedLoopbackCertificate(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

export interface ColdRequests {
  /** What every measured process's environment adds: the local endpoints, credentials and tables. */
  environment: Record<string, string>;
  /** The first request of a bundle; undefined for the stream functions, which serve none. */
  requestFor(bundle: BuiltBundle): ColdRequest | undefined;
  close(): Promise<void>;
}

/** Arranges what the first requests read (a key, a conversation, a job, report rows) and starts the OpenSearch stub. */
export async function arrangeColdRequests(
  dynamo: LocalDynamoConnection,
  tables: Record<TableId, string>,
): Promise<ColdRequests> {
  const stores = bindTableStores(documentClient(), tables);
  const now = Date.now();
  const keyTagSecret = randomBytes(32).toString('base64url');
  const { key } = await issueKey(
    stores.keys,
    { tenants: [BENCH_TENANT], scopes: SCOPES, name: 'bench cold requests' },
    { tagSecret: keyTagSecret },
  );
  await stores.documents.replace(BENCH_TENANT, BENCH_COLLECTION, BENCH_DOC_ID, JSON.stringify(BENCH_DOCUMENT));
  for (const version of [BENCH_DOCUMENT, { ...BENCH_DOCUMENT, language: 'en' }])
    await stores.documents.replace(BENCH_TENANT, BENCH_COLLECTION, HISTORY_DOC, JSON.stringify(version));
  await stores.conversations.putConversation(BENCH_TENANT, conversationWithDefaults({ id: CONVERSATION }));
  await stores.vocJobs.put(BENCH_TENANT, {
    id: VOC_JOB,
    status: 'completed',
    started: now - 60_000,
    file: 'call.mp3',
    recordingId: 'bench-recording',
  });
  for (const endpointId of [ENDPOINT, `${ENDPOINT}-deleted`]) {
    await stores.webhookEndpoints.create(
      BENCH_TENANT,
      {
        id: endpointId,
        url: 'https://93.184.215.14/cxm',
        events: ['note.created'],
        description: '',
        status: 'enabled',
        createdAt: new Date(now).toISOString(),
        updatedAt: new Date(now).toISOString(),
        secrets: { current: newWebhookSecret() },
      },
      { limit: MAX_ENDPOINTS_PER_TENANT_LIMIT },
    );
  }
  const rows = stores.reportingRows;
  const shaped = Object.fromEntries(
    REPORT_KINDS.map((kind) => [
      kind,
      Array.from({ length: REPORT_ROWS }, (_, i) => {
        const datetimeMs = now - (i + 1) * 60_000;
        // An assistant row's Datetime is epoch milliseconds, a VOC row's ISO 8601 with a zone.
        return shapeRow(kind, BENCH_TENANT, {
          ID: `cold-${i}`,
          Datetime: kind === 'assistant' ? datetimeMs : new Date(datetimeMs).toISOString(),
          Summary: 'Asked about a duplicate charge.',
        });
      }),
    ]),
  ) as Record<ReportKind, ShapedRow[]>;
  for (const kind of REPORT_KINDS) await rows.putRows(BENCH_TENANT, kind, shaped[kind]);
  // The lists read their cursor keys, and the authorizer its key-tag secret, from Secrets Manager
  // on their first request, as deployed.
  const webhookSecretKey = randomBytes(32).toString('base64url');
  const secrets = await startLocalSecretsManager(
    [
      { arn: CURSOR_SECRET_ARN, name: 'cxm-bench-cursor-secret', value: randomBytes(32).toString('base64url') },
      { arn: KEY_TAG_SECRET_ARN, name: 'cxm-bench-key-tag-secret', value: keyTagSecret },
      { arn: WEBHOOK_SECRET_KEY_ARN, name: 'cxm-bench-webhook-secret-key', value: webhookSecretKey },
    ],
    dynamo.credentials,
  );
  // Over HTTPS, as a domain is reached, so the lists' client signs its search (credentials, SigV4)
  // as deployed; their rows pay a TLS handshake the DynamoDB rows do not (DynamoDB Local is plain HTTP).
  const tlsDir = mkdtempSync(join(tmpdir(), 'cxm-bench-tls-'));
  const tls = selfSignedLoopbackCertificate(tlsDir);
  // One page and one more hit, as the list asks (limit + 1), oldest first as the list orders them.
  const search: OpenSearchStub = await startOpenSearchStub(
    (path) => {
      const kind = REPORT_KINDS.find((candidate) => path.includes(`-${candidate}-`)) ?? 'assistant';
      const hits = shaped[kind]
        .map((row) => ({
          id: `${BENCH_TENANT}#${kind}#${row.id}`,
          row: JSON.stringify(row.row),
          sort: [row.datetimeMs, row.id] as [number, string],
        }))
        .reverse();
      return searchAnswer(path.split('/')[1] ?? '', hits.slice(0, REPORT_PAGE + 1), hits.length);
    },
    { tls },
  );

  const environment: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ACCESS_KEY_ID: dynamo.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: dynamo.credentials.secretAccessKey,
    ...Object.fromEntries(allTableSpecs.map((spec) => [spec.envVar, tables[spec.id]])),
    [FUNCTION_ENV.opensearchEndpoint]: search.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    NODE_EXTRA_CA_CERTS: tls.certFile,
    CXM_CURSOR_SECRET_ARN: CURSOR_SECRET_ARN,
    CXM_KEY_TAG_SECRET_ARN: KEY_TAG_SECRET_ARN,
    // The delivery function reads the key; the registration and the rotation seal to its public
    // key, as CDK configures them.
    CXM_WEBHOOK_SECRET_KEY_ARN: WEBHOOK_SECRET_KEY_ARN,
    [FUNCTION_ENV.webhookSealingKey]: sealingPublicKeyText(webhookSecretKey),
    // A create per run, up to --runs' hundred, each under the limit.
    [FUNCTION_ENV.webhookMaxEndpoints]: String(MAX_ENDPOINTS_PER_TENANT_LIMIT),
    // A recording per process (two a round: with and without the cache), each under the limit.
    [FUNCTION_ENV.recordingMaxInFlightPerTenant]: '10000',
    // A restore per run keeps version 1 however many runs there are.
    [FUNCTION_ENV.documentVersionsKeep]: '10000',
    // The recover's queue: its cold request recovers nothing, so sends nothing there.
    [FUNCTION_ENV.webhookQueueUrl]: 'http://127.0.0.1:9/000000000000/cxm-bench-webhook-deliveries',
  };

  const documentRequest = JSON.stringify(
    routeEvent('getCurrentDocument', { ...ROUTE_REQUESTS.getCurrentDocument.request, scopes: SCOPES }),
  );
  const authorizerEvent = JSON.stringify(
    buildAuthorizerEvent(
      benchRequestParts('GET', documentPath(BENCH_DOC_ID), ['Host', '127.0.0.1', 'Authorization', `Bearer ${key}`]),
      routeById('getCurrentDocument'),
      documentParameters(BENCH_DOC_ID),
    ),
  );
  const openApiEvent: APIGatewayProxyEvent = buildProxyEvent(
    benchRequestParts('GET', '/openapi.json', ['Host', '127.0.0.1']),
    { id: OPENAPI_DOCUMENT_OPERATION, path: '/openapi.json' },
    {},
    {},
  );

  return {
    environment,
    requestFor(bundle) {
      // The probe is the baseline plus the validators module: the baseline's request too.
      if (bundle.kind === 'baseline' || bundle.kind === 'peer' || bundle.kind === 'probe')
        return { event: documentRequest, accepted: [200] };
      if (bundle.kind === 'stream') return undefined;
      if (bundle.entry === AUTHORIZER_HANDLER) return { event: authorizerEvent, accepted: ['Allow'] };
      if (bundle.name === OPENAPI_DOCUMENT_OPERATION) return { event: JSON.stringify(openApiEvent), accepted: [200] };
      const id = bundle.name.replace(/ \(OpenSearch stage\)$/, '') as RouteId;
      const planned = ROUTE_REQUESTS[id];
      if (!planned) throw new Error(`no cold request is planned for ${bundle.name} (test/bench/cold-requests.ts)`);
      return {
        event: JSON.stringify(routeEvent(id, { ...planned.request, scopes: SCOPES })),
        accepted: planned.accepted,
      };
    },
    close: async () => {
      await Promise.all([search.close(), secrets.close()]);
      rmSync(tlsDir, { recursive: true, force: true });
      // Every search came signed, or the OpenSearch stage's rows measured another path than deployed.
      const unsigned = search.requests.filter((request) => !request.signed).length;
      if (unsigned > 0)
        throw new Error(`${unsigned} of ${search.requests.length} searches reached the OpenSearch stub unsigned`);
    },
  };
}
