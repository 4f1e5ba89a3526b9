/**
 * The local stand-in for API Gateway: the same route table, the same authorizer and handler
 * modules, the same proxy events and the same gateway responses. No endpoint logic lives here.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { RateLimit } from '#infra/cdk/stage/default-rate-limits';
import { functionName, LOCAL_STAGE } from '#infra/stage-names';
import { FUNCTION_TIMEOUT_SECONDS, type RouteSpec } from '#shared/api/route-spec';
import { type GatewayResponseType, gatewayResponses } from '#shared/http/gateway-responses';
import { commonHeaders } from '#shared/http/response-headers';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../emulators/local-identity.ts';
import { AuthorizerCache, policyAllows } from './authorizer-cache.ts';
import { buildAuthorizerEvent, buildProxyEvent, type IncomingParts, methodArn } from './build-proxy-event.ts';
import { AuthorizerConfigurationError, integrationAuthorizerContext } from './integration-authorizer-context.ts';
import { matchRoute } from './match-route.ts';
import { TokenBuckets } from './token-buckets.ts';

/** API Gateway's own payload limit. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface LocalGatewayOptions {
  routes: readonly RouteSpec[];
  authorizer: AuthorizerHandler;
  handlers: ReadonlyMap<string, ProxyHandler>;
  authCacheTtlSeconds: number;
  /** Throttling per usage identity (a tenant, or a key of several tenants) as a usage plan does it; none when undefined. */
  rateLimit?: RateLimit;
  /** The stage throttle: one bucket per route and method, before any authorizer runs, as API Gateway applies a stage's throttle to each method. */
  stageRateLimit?: RateLimit;
  /** Where faults of the gateway itself are reported. */
  onFault?: (error: unknown) => void;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

function gatewayReply(type: GatewayResponseType, requestId: string, status?: number): Reply {
  const spec = gatewayResponses[type];
  return {
    status: spec.status ?? status ?? 400,
    headers: { ...commonHeaders(requestId), ...spec.headers },
    body: Buffer.from(JSON.stringify({ code: spec.code, message: spec.message })),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAYLOAD_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function authorizationValues(rawHeaders: string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1]!);
  }
  return values;
}

function lambdaContext(route: RouteSpec, requestId: string): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_SECONDS * 1000;
  const name = functionName(LOCAL_STAGE, route.id);
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A proxy result API Gateway would accept; anything else is its 502. */
function integrationReply(result: unknown, requestId: string): Reply {
  if (!result || typeof result !== 'object' || typeof (result as APIGatewayProxyResult).statusCode !== 'number') {
    return gatewayReply('INTEGRATION_FAILURE', requestId);
  }
  const proxy = result as APIGatewayProxyResult;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(proxy.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(proxy.multiValueHeaders ?? {})) headers[name] = values.map(String);
  const body = proxy.body ?? '';
  return { status: proxy.statusCode, headers, body: Buffer.from(body, proxy.isBase64Encoded ? 'base64' : 'utf8') };
}

export function createLocalGateway(options: LocalGatewayOptions) {
  const cache = new AuthorizerCache(options.authCacheTtlSeconds);
  const buckets = options.rateLimit ? new TokenBuckets(options.rateLimit) : undefined;
  const stageBucket = options.stageRateLimit ? new TokenBuckets(options.stageRateLimit) : undefined;

  async function handle(req: IncomingMessage): Promise<Reply> {
    const requestId = randomUUID();
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const rawPath = queryAt < 0 ? url : url.slice(0, queryAt);
    const method = req.method ?? 'GET';
    const match = matchRoute(options.routes, method, rawPath);
    if (match.kind === 'no-route') return gatewayReply('MISSING_AUTHENTICATION_TOKEN', requestId);
    // The stage's throttle comes before the authorizer: a flood of made-up tokens is refused
    // without invoking it (a usage plan's throttle, below, needs the authorizer's answer first).
    if (stageBucket && !stageBucket.take(`${method} ${match.route.path}`)) return gatewayReply('THROTTLED', requestId);

    const body = await readBody(req);
    if (body === 'too-large') return gatewayReply('REQUEST_TOO_LARGE', requestId);
    const parts: IncomingParts = {
      method,
      rawPath,
      rawQuery: queryAt < 0 ? '' : url.slice(queryAt + 1),
      rawHeaders: req.rawHeaders,
      body,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      host: req.headers.host ?? '127.0.0.1',
      requestId,
      now: new Date(),
    };

    // API Gateway answers a request without the identity source itself, before the authorizer.
    // Two Authorization headers are refused: the cache key and the authorizer must see one value.
    const identities = authorizationValues(req.rawHeaders);
    const identity = identities[0];
    if (identities.length !== 1 || identity === undefined || identity === '')
      return gatewayReply('UNAUTHORIZED', requestId);
    let authorization: APIGatewayAuthorizerResult;
    let authorizerContext: Record<string, string | number>;
    const authorizerStarted = Date.now();
    try {
      // Cached per key: AUTHORIZER_IDENTITY_SOURCES, the stack's (bundle mode checks the template's).
      authorization = await cache.get(identity, () =>
        options.authorizer(buildAuthorizerEvent(parts, match.route, match.pathParameters)),
      );
      authorizerContext = integrationAuthorizerContext(authorization, Date.now() - authorizerStarted);
    } catch (error) {
      if (error instanceof Error && error.message === 'Unauthorized') return gatewayReply('UNAUTHORIZED', requestId);
      options.onFault?.(error);
      return gatewayReply(
        error instanceof AuthorizerConfigurationError ? 'AUTHORIZER_CONFIGURATION_ERROR' : 'AUTHORIZER_FAILURE',
        requestId,
      );
    }
    if (!policyAllows(authorization, methodArn(method, rawPath))) return gatewayReply('ACCESS_DENIED', requestId);
    // Usage plans throttle after the authorizer, per usage identifier: the key's usage owner's.
    if (buckets && !buckets.take(authorization.usageIdentifierKey ?? authorization.principalId))
      return gatewayReply('THROTTLED', requestId);
    if (match.malformed) return gatewayReply('BAD_REQUEST_PARAMETERS', requestId);

    const handler = options.handlers.get(match.route.id);
    if (!handler) return gatewayReply('DEFAULT_5XX', requestId);
    const event = buildProxyEvent(parts, match.route, match.pathParameters, authorizerContext);
    try {
      return integrationReply(await handler(event, lambdaContext(match.route, requestId)), requestId);
    } catch (error) {
      // A function that throws is a failed integration: API Gateway answers 502.
      options.onFault?.(error);
      return gatewayReply('INTEGRATION_FAILURE', requestId);
    }
  }

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let reply: Reply;
    try {
      reply = await handle(req);
    } catch (error) {
      options.onFault?.(error);
      reply = gatewayReply('DEFAULT_5XX', randomUUID());
    }
    res.writeHead(reply.status, { ...reply.headers, 'Content-Length': reply.body.length });
    res.end(reply.body);
  };
}
