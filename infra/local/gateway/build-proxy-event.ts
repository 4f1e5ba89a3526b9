/**
 * The API Gateway REST proxy event (payload v1) AWS sends to a function, built from a Node
 * request: headers in the client's case, query values decoded (the last of a repeated name in
 * `queryStringParameters`), path parameters decoded, a body that is not UTF-8 sent as base64.
 */
import type { APIGatewayEventRequestContext, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { LOCAL_STAGE } from '#infra/stage-names';
import type { RouteSpec } from '#shared/api/route-spec';
import { findHeader } from '#shared/http/find-header';
import { LOCAL_ACCOUNT, LOCAL_API_ID, LOCAL_REGION } from '../emulators/local-identity.ts';

export interface IncomingParts {
  method: string;
  rawPath: string;
  rawQuery: string;
  /** Alternating names and values, as Node's `rawHeaders`. */
  rawHeaders: string[];
  body: Buffer;
  sourceIp: string;
  host: string;
  requestId: string;
  now: Date;
}

/**
 * Name -> values, collected in a Map and turned into own properties by Object.fromEntries: a
 * client-chosen name such as `__proto__` or `constructor` is then just a name, never the prototype.
 */
function nameMaps(pairs: Iterable<[string, string]>) {
  const values = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  const single = Object.fromEntries([...values].map(([name, list]) => [name, list[list.length - 1]!]));
  const multi = Object.fromEntries(values);
  return { single, multi, empty: values.size === 0 };
}

function headerMaps(rawHeaders: string[]) {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  const { single, multi } = nameMaps(pairs);
  return { headers: single, multi };
}

function queryMaps(rawQuery: string) {
  const { single, multi, empty } = nameMaps(new URLSearchParams(rawQuery));
  return { single: empty ? null : single, multi: empty ? null : multi };
}

/** API Gateway's `requestTime` format: `21/Nov/2026:08:00:00 +0000`. */
function requestTime(now: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(now.getUTCDate())}/${months[now.getUTCMonth()]}/${now.getUTCFullYear()}:${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())} +0000`;
}

function requestContext(
  parts: IncomingParts,
  route: RouteIdentity,
  headers: Record<string, string>,
): APIGatewayEventRequestContext {
  const userAgent = findHeader(headers, 'user-agent') ?? null;
  return {
    accountId: LOCAL_ACCOUNT,
    apiId: LOCAL_API_ID,
    authorizer: null,
    domainName: parts.host,
    domainPrefix: parts.host.split('.')[0] ?? parts.host,
    extendedRequestId: parts.requestId,
    httpMethod: parts.method,
    identity: {
      accessKey: null,
      accountId: null,
      apiKey: null,
      apiKeyId: null,
      caller: null,
      clientCert: null,
      cognitoAuthenticationProvider: null,
      cognitoAuthenticationType: null,
      cognitoIdentityId: null,
      cognitoIdentityPoolId: null,
      principalOrgId: null,
      sourceIp: parts.sourceIp,
      user: null,
      userAgent,
      userArn: null,
    },
    // The local server is addressed without a stage prefix, like a custom domain at its root.
    path: parts.rawPath,
    protocol: 'HTTP/1.1',
    requestId: parts.requestId,
    requestTime: requestTime(parts.now),
    requestTimeEpoch: parts.now.getTime(),
    resourceId: route.id,
    resourcePath: route.path,
    stage: LOCAL_STAGE,
  };
}

/** What an event takes from its route: the resource id and path (the OpenAPI document's route is not in the table). */
export type RouteIdentity = Pick<RouteSpec, 'path'> & { id: string };

export function methodArn(method: string, rawPath: string): string {
  return `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${LOCAL_API_ID}/${LOCAL_STAGE}/${method}${rawPath}`;
}

export function buildAuthorizerEvent(
  parts: IncomingParts,
  route: RouteIdentity,
  pathParameters: Record<string, string>,
): APIGatewayRequestAuthorizerEvent {
  const { headers, multi } = headerMaps(parts.rawHeaders);
  const query = queryMaps(parts.rawQuery);
  return {
    type: 'REQUEST',
    methodArn: methodArn(parts.method, parts.rawPath),
    resource: route.path,
    path: parts.rawPath,
    httpMethod: parts.method,
    headers,
    multiValueHeaders: multi,
    pathParameters,
    queryStringParameters: query.single,
    multiValueQueryStringParameters: query.multi,
    stageVariables: null,
    requestContext: { ...requestContext(parts, route, headers), authorizer: undefined },
  };
}

export function buildProxyEvent(
  parts: IncomingParts,
  route: RouteIdentity,
  pathParameters: Record<string, string>,
  authorizer: Record<string, unknown>,
): APIGatewayProxyEvent {
  const { headers, multi } = headerMaps(parts.rawHeaders);
  const query = queryMaps(parts.rawQuery);
  let body: string | null = null;
  let isBase64Encoded = false;
  if (parts.body.length > 0) {
    const text = parts.body.toString('utf8');
    // Bytes that are not UTF-8 would be mangled by a string; base64 keeps them exact.
    isBase64Encoded = !Buffer.from(text, 'utf8').equals(parts.body);
    body = isBase64Encoded ? parts.body.toString('base64') : text;
  }
  return {
    resource: route.path,
    path: parts.rawPath,
    httpMethod: parts.method,
    headers,
    multiValueHeaders: multi,
    queryStringParameters: query.single,
    multiValueQueryStringParameters: query.multi,
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    stageVariables: null,
    requestContext: { ...requestContext(parts, route, headers), authorizer },
    body,
    isBase64Encoded,
  };
}
