/**
 * The chain every API function uses (shared/README.md, the way of a request), in this order: log
 * context, authorization, the Origin check of routes that declare it, path/query validation, body
 * size + JSON parse, body validation, the Idempotency-Key of routes that accept it, handler; error
 * mapping, response headers and the metrics flush wrap them all. middy runs `onError` in reverse
 * registration order, so the headers middleware, registered before the error mapping, sees the
 * mapped error, and the flush, registered before both, publishes what the mapping counted.
 */
import middy from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { type RouteId, routeById } from '#shared/api/route-table';
import type { RouteInputs } from '#shared/schemas/route-validators.generated';
import { type ApiRequest, type ApiResult, type ChainEvent, resultBodyText } from './api-types.ts';
import { authorizeRequest } from './authorize-request.ts';
import { logContext } from './logger.ts';
import { mapError } from './map-error.ts';
import { flushMetrics } from './metrics.ts';
import { parseJsonBody, rawBody } from './parse-json-body.ts';
import { readIdempotencyKey } from './read-idempotency-key.ts';
import { refuseForeignOrigin } from './refuse-foreign-origin.ts';
import { addResponseHeaders } from './response-headers.ts';
import { runWithDeadline } from './run-with-deadline.ts';
import { selfUrl } from './self-url.ts';
import type { RouteValidators } from './validate-request.ts';
import { validateBody, validateParameters } from './validate-request.ts';

/**
 * Time kept back before the Lambda deadline to answer 504 ourselves instead of being killed, and,
 * within it, how long an aborted store call may take to end before the 504 leaves.
 */
const DEADLINE = { marginMs: 500, graceMs: 300 };

export type ApiHandler = (event: ChainEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * `validators` is the route's entry of shared/schemas/route-validators.generated.ts, imported by
 * name in the handler's file: it names the route and carries only that route's validators. Its id
 * picks the route's input types, so `run` gets a typed path, query and body.
 */
export function createApiHandler<Id extends RouteId>(
  validators: RouteValidators & { id: Id },
  run: (request: ApiRequest<RouteInputs[Id]>) => Promise<ApiResult>,
): ApiHandler {
  const route = routeById(validators.id);
  // The deadline is runWithDeadline's, per invocation: middy's own (timeoutEarly) shares one
  // AbortController across the invocations of a process.
  return middy<ChainEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(logContext(route))
    .use(flushMetrics())
    .use(addResponseHeaders())
    .use(mapError(route))
    .use(authorizeRequest(route))
    .use(route.checksOrigin ? refuseForeignOrigin() : [])
    .use(validateParameters(validators))
    .use(parseJsonBody(route))
    .use(validateBody(validators))
    .use(route.idempotencyKey ? readIdempotencyKey(route) : [])
    .handler(async (event, context) => {
      const state = event.cxm;
      // authorizeRequest always sets it; reaching here without it is a wiring fault.
      if (!state) throw new Error('request reached the handler without authorization');
      const result = await runWithDeadline(context, DEADLINE, (signal) =>
        run({
          tenantId: state.tenantId,
          caller: state.caller,
          // What validateParameters and validateBody let through: the route's types hold.
          path: (event.pathParameters ?? {}) as RouteInputs[Id]['path'],
          query: (event.queryStringParameters ?? {}) as RouteInputs[Id]['query'],
          body: state.body as RouteInputs[Id]['body'],
          requestId: event.requestContext.requestId,
          signal,
          idempotency: state.idempotency,
          http: {
            method: event.httpMethod,
            headers: event.headers,
            multiValueHeaders: event.multiValueHeaders ?? {},
            rawBody: state.rawBody ?? rawBody(event),
            selfUrl: selfUrl(event),
          },
        }),
      );
      return {
        statusCode: result.status,
        headers: result.headers,
        body: resultBodyText(result),
      };
    }) as ApiHandler;
}
