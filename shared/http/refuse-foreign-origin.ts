/**
 * In the chain right after authorization, for routes that declare `checksOrigin`: the MCP transport spec requires a
 * server to refuse an `Origin` it does not expect, so that a web page in a browser cannot drive
 * it (DNS rebinding). A request without `Origin` comes from a server and passes. Where a list of
 * hosts is set (the local gateway), a `Host` outside it is refused too: a rebound name reaches a
 * local server with that name as its Host, and the browser's own Origin would then match it.
 * It runs after authorization, so the order 401 -> 403 stays.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { foreignHost, foreignOrigin } from '#shared/api/api-error';
import { isAllowedHost, isAllowedOrigin } from './allowed-origins.ts';
import type { ChainEvent } from './api-types.ts';
import { findHeader } from './find-header.ts';

export function refuseForeignOrigin(): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return {
    before: ({ event }) => {
      if (!isAllowedHost(findHeader(event.headers, 'host'))) throw foreignHost();
      const origin = findHeader(event.headers, 'origin');
      if (origin !== undefined && !isAllowedOrigin(origin)) throw foreignOrigin();
    },
  };
}
