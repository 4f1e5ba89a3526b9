import type { APIGatewayProxyEvent } from 'aws-lambda';
import { badRequest } from '#shared/api/api-error';
import { findHeader } from './find-header.ts';

/** RFC 3986 host (a bracketed IP literal or a reg-name) with an optional port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=]+)(?::[0-9]{0,5})?$/;

/**
 * The absolute URL the caller used for this resource, without the query: for links in responses
 * (`Link: rel="next"`) and the MCP transport's request. `requestContext.path` carries the stage or
 * base path the caller saw, and API Gateway sets X-Forwarded-Proto; a local request has neither
 * prefix nor TLS. Locally both headers come from the client as sent, so a scheme other than http
 * or https is ignored, and a Host that is no host is the client's error (RFC 9112 section 3.2:
 * 400) rather than an unparseable URL failing the request later as a 5xx.
 */
export function selfUrl(event: APIGatewayProxyEvent): string {
  const forwarded = findHeader(event.headers, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const proto = forwarded === 'https' ? 'https' : 'http';
  // An empty Host is no Host (||, not ??).
  const host = (findHeader(event.headers, 'host') || event.requestContext.domainName || 'localhost').trim();
  if (host !== validHost) {
    if (!isValidHost(host)) throw badRequest("Header 'Host' is not a valid host.");
    validHost = host;
  }
  return `${proto}://${host}${event.requestContext.path ?? event.path}`;
}

/**
 * The last Host found valid. A function's requests come through one or two host names, and the
 * check parses a URL; the path never fails a parse (an absolute path only ever gets escaped), so
 * the host's verdict is the URL's.
 */
let validHost: string | undefined;

/** Whether `host` (a name or a bracketed IP literal, with an optional port) makes a URL: a port past 65535 does not. */
function isValidHost(host: string): boolean {
  return HOST.test(host) && URL.canParse(`http://${host}/`);
}
