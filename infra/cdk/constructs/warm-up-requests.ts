/**
 * The request each function answers while its code cache is made (compile-cache.ts), so the cache
 * also holds what a first request compiles: the chain, the validators, the AWS SDK's request path.
 * Made from the route table and the OpenAPI document's own examples (path parameters, the first
 * request body), with a caller the authorizer would have let through. Its AWS calls reach a server
 * on loopback that answers as a stage holding one document would (make-compile-cache.cjs,
 * WARM_UP_STAGE_ITEMS), so nothing leaves the machine; the answer is often a 404 or an error, which
 * is fine: the code on the way to it is what counts.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { AUTHORIZER_HANDLER, OPENAPI_DOCUMENT_HANDLER, type RouteSpec } from '#shared/api/route-spec';
import { fillPath, routes } from '#shared/api/route-table';
import { encodeCaller } from '#shared/auth/authorizer-context';
import { generateKey } from '#shared/auth/key-format';
import { operationDocs, parameterDocs } from '#shared/openapi/operation-docs';
import { schemaCatalog } from '#shared/schemas/schema-catalog';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import type { TableId } from '#shared/store/table-specs';

const HEADERS = {
  Host: 'warm-up.execute-api.us-east-1.amazonaws.com',
  Accept: 'application/json, text/event-stream',
  'Content-Type': 'application/json',
};

/** The parts of API Gateway's event every request has. */
function gatewayEvent(method: string, resource: string, path: string) {
  return {
    resource,
    path,
    httpMethod: method,
    headers: HEADERS,
    multiValueHeaders: Object.fromEntries(Object.entries(HEADERS).map(([name, value]) => [name, [value]])),
    stageVariables: null,
    requestContext: {
      accountId: '000000000000',
      apiId: 'warmup',
      domainName: HEADERS.Host,
      httpMethod: method,
      path: `/warm-up${path}`,
      protocol: 'HTTP/1.1',
      requestId: 'compile-cache-warm-up',
      requestTimeEpoch: Date.now(),
      resourceId: 'warmup',
      resourcePath: resource,
      stage: 'warm-up',
      identity: { sourceIp: '127.0.0.1', userAgent: 'compile-cache' },
    },
  };
}

/**
 * A public address (example.com's, never connected to) for the host of a warm-up body's `url`: the
 * examples' hosts are under `.example`, which resolves nowhere, so a webhook target check would
 * stop the warm-up there; an address literal passes it without a DNS query, and a synthesis sends none.
 */
const PUBLIC_ADDRESS = '93.184.215.14';

function withAddressLiteral(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('url' in body) || typeof body.url !== 'string') return body;
  const url = new URL(body.url);
  url.hostname = PUBLIC_ADDRESS;
  return { ...body, url: url.href };
}

function exampleOf(name: string): string {
  const example = parameterDocs[name]?.example;
  if (example === undefined) throw new Error(`the OpenAPI docs have no example of parameter ${name}`);
  return example;
}

/** A route's request, from its examples, as the gateway passes it on once the authorizer allowed it. */
function routeEvent(route: RouteSpec): APIGatewayProxyEvent {
  const pathParameters = Object.fromEntries(
    [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, exampleOf(name!)]),
  );
  const querySchema = route.schemas.query && (schemaCatalog[route.schemas.query] as { required?: readonly string[] });
  const query = Object.fromEntries((querySchema?.required ?? []).map((name) => [name, exampleOf(name)]));
  const bodyExample = Object.values(operationDocs[route.id as keyof typeof operationDocs]?.requestExamples ?? {})[0];
  const fill = (scope: string) =>
    scope.replace(/\{(\w+)\}/g, (_match, name: string) => pathParameters[name] ?? exampleOf(name));
  const base = gatewayEvent(route.method, route.path, `/${fillPath(route, pathParameters)}`.replace(/^\/+/, '/'));
  return {
    ...base,
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    queryStringParameters: Object.keys(query).length > 0 ? query : null,
    multiValueQueryStringParameters: null,
    body: bodyExample === undefined ? null : JSON.stringify(withAddressLiteral(bodyExample.value)),
    isBase64Encoded: false,
    requestContext: {
      ...base.requestContext,
      authorizer: {
        ...encodeCaller({
          keyId: 'warmup',
          tenants: [pathParameters.tenantId ?? exampleOf('tenantId')],
          // Every route's: a route that checks grants beyond its own (the events an endpoint
          // receives) goes on to its store.
          scopes: [...new Set(routes.map((each) => fill(each.scope)))],
        }),
        principalId: 'warmup',
      },
    },
  } as unknown as APIGatewayProxyEvent;
}

/**
 * What the warm-up's stage holds, by table: one document, in the documents table and as a version
 * of its own, at the version the requests name (their example), with the attributes the documents
 * store keeps (shared/store/documents-store.ts). A document's read, replace, merge and restore then
 * go the way a request for a stored document goes, their write included, where an empty stage
 * would stop them at a 404 and leave that code to the first real request. A GetItem of one of
 * these tables gets the key it asked for with these attributes; every other table is empty.
 *
 * @example WARM_UP_STAGE_ITEMS.documents.version // 3, the version the examples name
 */
export const WARM_UP_STAGE_ITEMS: Readonly<Partial<Record<TableId, Record<string, unknown>>>> = (() => {
  const version = Number(exampleOf('version'));
  const document = {
    data: '{"warm-up":true}',
    version,
    versioned: true,
    etag: '"warm-up"',
    change: 'replaced',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
  return { documents: document, documentVersions: { ...document, sk: version } };
})();

/**
 * A table's name during the warm-up: each its own, so the maker tells which one a call reads.
 *
 * @example warmUpTableName('documents') // 'compile-cache-documents'
 */
export const warmUpTableName = (id: TableId): string => `compile-cache-${id}`;

/**
 * Every table's variable as a function gets it during the warm-up: its warmUpTableName.
 *
 * @example warmUpTableEnvironment().CXM_TABLE_DOCUMENTS // 'compile-cache-documents'
 */
export function warmUpTableEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(FUNCTION_ENV.tables).map(([id, variable]) => [variable, warmUpTableName(id as TableId)]),
  );
}

/**
 * WARM_UP_STAGE_ITEMS as the maker answers them (its `COMPILE_CACHE_ITEMS`): by table name, in
 * DynamoDB's JSON.
 *
 * @example warmUpStageItems()['compile-cache-documents']?.version // { N: '3' }
 */
export function warmUpStageItems(): Record<string, Record<string, AttributeValue>> {
  return Object.fromEntries(
    Object.entries(WARM_UP_STAGE_ITEMS).map(([id, item]) => [warmUpTableName(id as TableId), marshall(item)]),
  );
}

/** The value every secret has during a warm-up: the authorizer's key is tagged with it. */
export const WARM_UP_SECRET = 'compile-cache-warm-up-tag-secret-0000000000';

/** The authorizer's request: a key of the right shape and tag, which it then looks up. */
function authorizerEvent(): APIGatewayRequestAuthorizerEvent {
  const route = routes[0]!;
  const { key } = generateKey(WARM_UP_SECRET);
  const base = gatewayEvent(route.method, route.path, '/warm-up');
  return {
    ...base,
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:us-east-1:000000000000:warmup/warm-up/${route.method}/warm-up`,
    headers: { ...base.headers, Authorization: `Bearer ${key}` },
    pathParameters: {},
    queryStringParameters: {},
    multiValueQueryStringParameters: {},
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

/**
 * The warm-up request of the function whose handler module is `entry`; undefined for the stream
 * functions, whose events come from AWS services and whose cold start is their import.
 *
 * @example warmUpEvent('functions/conversations/add-internal-note.ts')?.httpMethod // 'POST'
 */
export function warmUpEvent(entry: string): object | undefined {
  if (entry === AUTHORIZER_HANDLER) return authorizerEvent();
  if (entry === OPENAPI_DOCUMENT_HANDLER)
    return { ...gatewayEvent('GET', '/openapi.json', '/openapi.json'), body: null, isBase64Encoded: false };
  const route = (routes as readonly RouteSpec[]).find((candidate) => candidate.handler === entry);
  return route && routeEvent(route);
}
