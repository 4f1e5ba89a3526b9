/**
 * GET /openapi.json on a deployed stage: the OpenAPI document, without a key (it holds no secret and
 * no tenant data; infra/cdk/constructs/api-docs.ts). Built once per container; only `servers` is filled
 * in per request, with the URL the caller used for this stage.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { commonHeaders } from '#shared/http/response-headers';
import { buildOpenApiDocument } from '#shared/openapi/build-openapi-document';
import type { ServerObject } from '#shared/openapi/openapi-types';

const document = buildOpenApiDocument();

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  return {
    statusCode: 200,
    headers: commonHeaders(event.requestContext.requestId),
    body: JSON.stringify({ ...document, servers: [thisStage(event)] }),
  };
}

/**
 * `https://<host><base path>`: the base path is what precedes the resource in the path the caller
 * sent (`/<stage>` on the execute-api host, a mapping's base path on a custom domain).
 */
function thisStage(event: APIGatewayProxyEvent): ServerObject {
  const { domainName, path, stage } = event.requestContext;
  const base = path.endsWith(event.resource) ? path.slice(0, path.length - event.resource.length) : `/${stage}`;
  return {
    url: `https://${domainName ?? event.headers.Host ?? event.headers.host}${base}`,
    description: `The ${stage} stage that served this document.`,
    'x-internal': false,
  };
}
