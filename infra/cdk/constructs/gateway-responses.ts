/**
 * Turns the shared gateway-response specs into API Gateway gateway responses, so an error API
 * Gateway makes by itself (401 from the authorizer, 404 for an unknown path, 5xx of a crashed
 * integration) has the same `{code, message}` body and headers as an error from our functions.
 */
import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type GatewayResponseSpec, type GatewayResponseType, gatewayResponses } from '#shared/http/gateway-responses';
import { commonHeaders } from '#shared/http/response-headers';

// Header mapping values are expressions: `'text'` is a literal, a bare name is a context variable.
const REQUEST_ID_EXPRESSION = 'context.requestId';

export function addGatewayResponses(api: RestApi): void {
  for (const [type, spec] of Object.entries(gatewayResponses) as [GatewayResponseType, GatewayResponseSpec][]) {
    api.addGatewayResponse(`${type}Response`, {
      type: ResponseType.of(type),
      ...(spec.status !== undefined && { statusCode: String(spec.status) }),
      responseHeaders: gatewayResponseHeaders(spec),
      templates: { 'application/json': errorBodyTemplate(spec) },
    });
  }
}

/** The common response headers plus the spec's own, as gateway-response mapping expressions. */
export function gatewayResponseHeaders(spec: GatewayResponseSpec): Record<string, string> {
  // The same header set the functions send; the request id placeholder becomes a context variable.
  const headers = { ...commonHeaders(REQUEST_ID_EXPRESSION), ...spec.headers };
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      value === REQUEST_ID_EXPRESSION ? value : quoteLiteral(name, value),
    ]),
  );
}

/**
 * The body as a (Velocity) mapping template. JSON.stringify does the JSON escaping; `$` and `#`
 * would start a Velocity reference or directive, so they are written as JSON unicode escapes,
 * which any JSON parser reads back as the same characters.
 */
export function errorBodyTemplate(spec: Pick<GatewayResponseSpec, 'code' | 'message'>): string {
  return JSON.stringify({ code: spec.code, message: spec.message })
    .replaceAll('$', '\\u0024')
    .replaceAll('#', '\\u0023');
}

function quoteLiteral(name: string, value: string): string {
  // A header literal has no escape for its own quote character; refuse rather than mangle.
  if (value.includes("'")) throw new Error(`gateway response header ${name} cannot contain a single quote: ${value}`);
  return `'${value}'`;
}
