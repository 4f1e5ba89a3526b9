import type { APIGatewayProxyEvent } from 'aws-lambda';
import { findHeader } from './find-header.ts';

/**
 * The absolute URL the caller used for this resource, without the query: for links in responses
 * (`Link: rel="next"`). `requestContext.path` carries the stage or base path the caller saw, and
 * API Gateway sets X-Forwarded-Proto; a local request has neither prefix nor TLS.
 */
export function selfUrl(event: APIGatewayProxyEvent): string {
  const proto = findHeader(event.headers, 'x-forwarded-proto') ?? 'http';
  const host = findHeader(event.headers, 'host') ?? event.requestContext.domainName ?? 'localhost';
  return `${proto}://${host}${event.requestContext.path ?? event.path}`;
}
