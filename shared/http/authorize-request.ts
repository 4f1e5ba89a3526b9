/**
 * The chain's authorization, right after the log context. The tenant comes only from the authorizer's context: the path's tenantId must be
 * one the key holds (exact comparison) and the route's scope must be granted.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { permissionDenied, unauthenticated } from '#shared/api/api-error';
import type { RouteSpec } from '#shared/api/route-spec';
import { decodeCaller } from '#shared/auth/authorizer-context';
import { scopeRule } from '#shared/auth/grant-scope';
import type { ChainEvent } from './api-types.ts';
import { logger } from './logger.ts';

export function authorizeRequest(route: RouteSpec): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  const isGranted = scopeRule(route.scope);
  return {
    before: ({ event }) => {
      // Fail closed: without the authorizer's context nobody is authenticated.
      const caller = decodeCaller(event.requestContext.authorizer);
      if (!caller) throw unauthenticated();
      logger.appendKeys({ keyId: caller.keyId });
      const params = event.pathParameters ?? {};
      const tenantId = params.tenantId;
      if (tenantId === undefined || !caller.tenants.includes(tenantId)) throw permissionDenied();
      if (!isGranted(caller.scopes, params)) throw permissionDenied();
      logger.appendKeys({ tenantId });
      event.cxm = { tenantId, caller };
    },
  };
}
