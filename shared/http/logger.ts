/**
 * One Powertools logger per function (a RequestLogger: request-logger.ts), and the request's log
 * context. The key itself is never a log field; keyId is. Every log line of a request carries its
 * request id and route, besides the Lambda context Powertools adds; authorization adds the key id
 * and the tenant once they are established (a path value is not yet a tenant). The logger drops
 * the keys when the request ends, answered or failed, so none reaches the next request of the
 * same environment.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { RouteSpec } from '#shared/api/route-spec';
import type { ChainEvent } from './api-types.ts';
import { RequestLogger } from './request-logger.ts';

// The deployed functions name the service through POWERTOOLS_SERVICE_NAME; this is the local default.
export const logger = new RequestLogger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'cxm-api' });

/**
 * The request's log context, as the chain's first middleware: it begins the request on the logger
 * and ends it with the answer, whether the request was answered or failed.
 *
 * @example middy(handler).use(logContext(route)) // a line logged by the handler carries route and requestId
 */
export function logContext(route: RouteSpec): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  const end = () => logger.endRequest();
  return {
    before: ({ event, context }) => {
      logger.beginRequest(context, { requestId: event.requestContext.requestId, route: route.id });
    },
    after: end,
    onError: end,
  };
}
