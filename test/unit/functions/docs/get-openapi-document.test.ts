/** The deployed stage's GET /openapi.json function: the document, the common headers, this stage as its server. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '#functions/docs/get-openapi-document';
import { buildOpenApiDocument } from '#shared/openapi/build-openapi-document';

function event(domainName: string, path: string): APIGatewayProxyEvent {
  return {
    resource: '/openapi.json',
    path: '/openapi.json',
    httpMethod: 'GET',
    headers: { Host: domainName },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      domainName,
      path,
      stage: 'prod',
      requestId: '0f8e4d1c-3b2a-4f6e-9d8c-7b6a5f4e3d2c',
    } as APIGatewayProxyEvent['requestContext'],
  };
}

describe('GET /openapi.json on a stage', () => {
  it('answers the document with the common headers, naming the stage it was reached on', async () => {
    const result = await handler(event('abcde12345.execute-api.eu-west-1.amazonaws.com', '/prod/openapi.json'));
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({
      'Content-Type': 'application/json; charset=utf-8',
      'X-Request-Id': '0f8e4d1c-3b2a-4f6e-9d8c-7b6a5f4e3d2c',
    });
    const document = JSON.parse(result.body) as ReturnType<typeof buildOpenApiDocument>;
    expect({ ...document, servers: [] }).toEqual({ ...buildOpenApiDocument(), servers: [] });
    expect(document.servers).toEqual([
      expect.objectContaining({ url: 'https://abcde12345.execute-api.eu-west-1.amazonaws.com/prod' }),
    ]);
  });

  it('on a custom domain, keeps the base path the caller used', async () => {
    const result = await handler(event('api.example.com', '/cxm/openapi.json'));
    expect((JSON.parse(result.body) as { servers: Array<{ url: string }> }).servers[0]!.url).toBe(
      'https://api.example.com/cxm',
    );
  });
});
