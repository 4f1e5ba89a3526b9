import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ChainEvent } from './api-types.ts';

/** Headers every API response carries, errors included (the chain's last step, shared/README.md). */
export function commonHeaders(requestId: string): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestId,
  };
}

/** Whether `headers` has a header of the lower-case name `name`, in whatever letter case. */
function hasHeader(headers: Record<string, unknown>, name: string): boolean {
  for (const own in headers) if (own.length === name.length && own.toLowerCase() === name) return true;
  return false;
}

/** Adds the common headers, unless the response sets one itself (in whatever letter case). */
export function withCommonHeaders(event: APIGatewayProxyEvent, response: APIGatewayProxyResult): APIGatewayProxyResult {
  const own = response.headers ?? {};
  // A 204 or a 304 has no body, so no Content-Type either (RFC 9110 sections 15.3.5 and 15.4.5).
  const bodiless = response.statusCode === 204 || response.statusCode === 304;
  const headers: NonNullable<APIGatewayProxyResult['headers']> = {};
  const common = commonHeaders(event.requestContext.requestId);
  for (const name in common) {
    const lower = name.toLowerCase();
    if (!(bodiless && lower === 'content-type') && !hasHeader(own, lower)) headers[name] = common[name]!;
  }
  return { ...response, headers: Object.assign(headers, own) };
}

/**
 * The chain's last step: the common headers on every response, errors included.
 *
 * @example middy(handler).use(addResponseHeaders())
 */
export function addResponseHeaders(): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  const add = (request: Request<ChainEvent, APIGatewayProxyResult>) => {
    if (request.response) request.response = withCommonHeaders(request.event, request.response);
  };
  return { after: add, onError: add };
}
