/** The chain's last step: the common headers on every response, errors included. */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ChainEvent } from './api-types.ts';
import { withCommonHeaders } from './response-headers.ts';

export function addResponseHeaders(): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  const add = (request: Request<ChainEvent, APIGatewayProxyResult>) => {
    if (request.response) request.response = withCommonHeaders(request.event, request.response);
  };
  return { after: add, onError: add };
}
