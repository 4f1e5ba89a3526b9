/**
 * One Powertools logger per function, and the request's log context. The key itself is never a
 * log field; keyId is. Every log line of a request carries its request id and route, besides the
 * Lambda context Powertools adds; authorization adds the key id and the tenant once they are
 * established (a path value is not yet a tenant). Powertools resets the keys when the request
 * ends, answered or failed, so none reaches the next request of the same environment.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { RouteSpec } from '#shared/api/route-spec';
import type { ChainEvent } from './api-types.ts';

// The deployed functions name the service through POWERTOOLS_SERVICE_NAME; this is the local default.
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'cxm-api' });

/**
 * The request's log context, as the chain's first middlewares.
 *
 * @example middy(handler).use(logContext(route)) // a line logged by the handler carries route and requestId
 */
export function logContext(route: RouteSpec): MiddlewareObj<ChainEvent, APIGatewayProxyResult>[] {
  return [
    injectLambdaContext(logger, { resetKeys: true }),
    {
      before: ({ event }) => {
        logger.appendKeys({ requestId: event.requestContext.requestId, route: route.id });
      },
    },
  ];
}
