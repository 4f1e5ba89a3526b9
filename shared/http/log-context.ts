/**
 * The chain's first step: every log line of the request carries its request id and route; authorization
 * adds the key id and the tenant once they are established (a path value is not yet a tenant).
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { RouteSpec } from '#shared/api/route-spec';
import type { ChainEvent } from './api-types.ts';
import { logger } from './logger.ts';

export function logContext(route: RouteSpec): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return {
    before: ({ event, context }) => {
      logger.resetKeys();
      logger.addContext(context);
      logger.appendKeys({
        requestId: event.requestContext.requestId,
        route: route.id,
      });
    },
  };
}
