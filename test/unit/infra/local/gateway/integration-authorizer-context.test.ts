/**
 * The local gateway hands the authorizer's context to the function as API Gateway does: values as
 * strings, beside principalId and integrationLatency; a value that is not a string, number or
 * boolean is the authorizer's misconfiguration, which the gateway answers itself.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, PolicyDocument } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  AuthorizerConfigurationError,
  integrationAuthorizerContext,
} from '#infra/local/gateway/integration-authorizer-context';
import { type AuthorizerHandler, createLocalGateway } from '#infra/local/gateway/local-gateway';
import { routes } from '#shared/api/route-table';

const allow: PolicyDocument = {
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
};

describe('integrationAuthorizerContext', () => {
  it('turns numbers and booleans into strings and adds principalId and integrationLatency', () => {
    expect(
      integrationAuthorizerContext(
        { principalId: 'key-1', policyDocument: allow, context: { keyId: 'k', count: 3, admin: false } },
        12,
      ),
    ).toEqual({
      keyId: 'k',
      count: '3',
      admin: 'false',
      principalId: 'key-1',
      integrationLatency: 12,
    });
  });

  it.each([
    ['an object', { nested: { a: 1 } }],
    ['an array', { list: ['a'] }],
    ['null', { nothing: null }],
  ])('refuses %s as a context value', (_what, context) => {
    expect(() =>
      integrationAuthorizerContext({ principalId: 'key-1', policyDocument: allow, context: context as never }, 0),
    ).toThrow(AuthorizerConfigurationError);
  });
});

describe('the gateway with such an authorizer', () => {
  async function serve(authorizer: AuthorizerHandler, seen: APIGatewayProxyEvent[]) {
    const handlers = new Map(
      routes.map((route) => [
        route.id,
        async (event: APIGatewayProxyEvent) => {
          seen.push(event);
          return { statusCode: 200, body: '{}' };
        },
      ]),
    );
    const gateway = createLocalGateway({ routes, authorizer, handlers, authCacheTtlSeconds: 0 });
    const server = createServer((req, res) => void gateway(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/voc/tenants/t/recording/j/status`;
    const response = await fetch(url, { headers: { Authorization: 'Bearer x' } });
    await new Promise((resolve) => server.close(resolve));
    return { status: response.status, body: (await response.json()) as unknown };
  }

  it('passes the context to the function as strings', async () => {
    const seen: APIGatewayProxyEvent[] = [];
    const { status } = await serve(
      async () => ({ principalId: 'key-1', policyDocument: allow, context: { tenants: 't', flag: true, n: 1 } }),
      seen,
    );
    expect(status).toBe(200);
    expect(seen[0]!.requestContext.authorizer).toMatchObject({
      tenants: 't',
      flag: 'true',
      n: '1',
      principalId: 'key-1',
    });
  });

  it('answers a context it cannot pass on as its own 503, without calling the function', async () => {
    const seen: APIGatewayProxyEvent[] = [];
    const { status, body } = await serve(
      async () => ({ principalId: 'key-1', policyDocument: allow, context: { tenants: ['t'] as never } }),
      seen,
    );
    expect(status).toBe(503);
    expect(body).toEqual({ code: 'ServiceUnavailable', message: expect.any(String) });
    expect(seen).toEqual([]);
  });
});
