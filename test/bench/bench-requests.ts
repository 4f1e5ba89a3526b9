/**
 * The requests the bench sends, in one place: the tenant, key scopes and data it arranges, and
 * API Gateway proxy events for the in-process measurements (built as the local gateway builds them).
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { buildProxyEvent, type IncomingParts } from '#infra/local/gateway/build-proxy-event';
import { type RouteId, routeById } from '#shared/api/route-table';
import { encodeCaller } from '#shared/auth/authorizer-context';

export const BENCH_TENANT = 'bench';
export const BENCH_COLLECTION = 'bots';
export const BENCH_DOC_ID = 'bench-bot';
export const BENCH_CONVERSATION = 'bench-conv';
export const BENCH_SCOPES = ['provisioning:bots.read', 'cxm:conversations.write', 'mcp:bots.read'];
/** A bot document of realistic size (some 300 bytes of JSON). */
export const BENCH_DOCUMENT = {
  name: 'Billing helper',
  language: 'en',
  channels: ['chat', 'email', 'whatsapp'],
  escalation: {
    queue: 'billing',
    afterMinutes: 5,
    businessHours: { from: '08:00', to: '18:00', zone: 'Europe/Berlin' },
  },
  greeting: 'Hello! I can help with invoices, refunds and duplicate charges. What can I do for you?',
};
/** The gateway's authorizer cache TTL in the bench: longer than any run, so no entry expires. */
export const BENCH_AUTH_CACHE_TTL_SECONDS = 300;
export const BENCH_NOTE_BODY = JSON.stringify({
  body: 'Customer called back about the duplicate charge; refund issued.',
});

export const documentPath = (tenantId = BENCH_TENANT) =>
  `/api/v1/provisioning/tenants/${tenantId}/${BENCH_COLLECTION}/${BENCH_DOC_ID}/versions/current`;
export const notePath = (tenantId = BENCH_TENANT, conversationId = BENCH_CONVERSATION) =>
  `/api/v1/cxm/tenants/${tenantId}/conversations/${conversationId}/internal-notes`;

/** The two routes whose speed the bench follows through the whole stack. */
export interface BenchRoute {
  id: Extract<RouteId, 'getCurrentDocument' | 'addInternalNote'>;
  /** How the bench names the measurement, when it is not the route id alone. */
  label?: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Request headers beyond the common ones, as name, value pairs. */
  headers?: string[];
  status: number;
}

export const BENCH_ROUTES: readonly BenchRoute[] = [
  { id: 'getCurrentDocument', method: 'GET', path: documentPath(), status: 200 },
  { id: 'addInternalNote', method: 'POST', path: notePath(), body: BENCH_NOTE_BODY, status: 201 },
];

/**
 * The note again, with an Idempotency-Key: what recording the answer in the note's own
 * transaction costs a warm request (header check, fingerprint, the record item), first executions
 * only, since every canned transaction commits.
 */
export const KEYED_NOTE_ROUTE: BenchRoute = {
  ...BENCH_ROUTES[1]!,
  label: 'addInternalNote + Idempotency-Key',
  headers: ['Idempotency-Key', '5f0c6e0a-8d1e-4a59-9f3b-0e6c2f1d7a44'],
};

/** The proxy event the gateway would send for `route`, after the authorizer allowed the bench key. */
export function benchEvent(route: BenchRoute): APIGatewayProxyEvent {
  const pathParameters: Record<string, string> =
    route.id === 'getCurrentDocument'
      ? { tenantId: BENCH_TENANT, collection: BENCH_COLLECTION, docId: BENCH_DOC_ID }
      : { tenantId: BENCH_TENANT, conversationId: BENCH_CONVERSATION };
  return routeEvent(route.id, { ...route, pathParameters, scopes: BENCH_SCOPES });
}

export interface RouteRequest {
  method: string;
  path: string;
  pathParameters: Record<string, string>;
  query?: string;
  body?: string;
  /** Request headers beyond the common ones (or replacing one of them), as name, value pairs. */
  headers?: string[];
  /** The bench key's scopes. */
  scopes: string[];
}

/** A request as the local gateway receives it from the bench's client on loopback. */
export function benchRequestParts(
  method: string,
  rawPath: string,
  rawHeaders: string[],
  { rawQuery = '', body = '' }: { rawQuery?: string | undefined; body?: string | undefined } = {},
): IncomingParts {
  return {
    method,
    rawPath,
    rawQuery,
    rawHeaders,
    body: Buffer.from(body),
    sourceIp: '127.0.0.1',
    host: '127.0.0.1',
    requestId: 'bench-request',
    now: new Date(),
  };
}

/** The proxy event the gateway would send for a request to route `id`, the bench key allowed. */
export function routeEvent(id: RouteId, request: RouteRequest): APIGatewayProxyEvent {
  const keyId = 'benchkey0001';
  const own = request.headers ?? [];
  const given = new Set(own.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase()));
  const common = [
    'Host',
    '127.0.0.1',
    'Accept',
    'application/json',
    'User-Agent',
    'cxm-bench',
    ...(request.body === undefined ? [] : ['Content-Type', 'application/json']),
  ];
  const rawHeaders = [
    ...common.flatMap((value, i, all) => (i % 2 === 0 && !given.has(value.toLowerCase()) ? [value, all[i + 1]!] : [])),
    ...own,
  ];
  return buildProxyEvent(
    benchRequestParts(request.method, request.path, rawHeaders, { rawQuery: request.query, body: request.body }),
    routeById(id),
    request.pathParameters,
    {
      ...encodeCaller({ keyId, tenants: [BENCH_TENANT], scopes: request.scopes }),
      principalId: keyId,
      integrationLatency: 0,
    },
  );
}

/** A Lambda context with the function's full time ahead (the chain arms its deadline from it). */
export function benchContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'cxm-bench',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:cxm-bench',
    memoryLimitInMB: '1024',
    awsRequestId: 'bench-request',
    logGroupName: '/aws/lambda/cxm-bench',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
