/** The chain of shared/http on synthetic proxy events: paths no real request reaches easily. */
import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FOREIGN_HOST_MESSAGE, FOREIGN_ORIGIN_MESSAGE, PERMISSION_DENIED_MESSAGE } from '#shared/api/api-error';
import { encodeCaller } from '#shared/auth/authorizer-context';
import type { ChainEvent } from '#shared/http/api-types';
import { createApiHandler } from '#shared/http/create-api-handler';
import { addInternalNote, mcpBots } from '#shared/schemas/route-validators.generated';
import { FUNCTION_ENV } from '#shared/settings/setting-names';

function event(
  overrides: Partial<ChainEvent> = {},
  authorizer: Record<string, unknown> | null = encodeCaller({ keyId: 'k1', tenants: ['acme'], scopes: ['cxm:*'] }),
): ChainEvent {
  return {
    resource: '',
    path: '/x',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { tenantId: 'acme', conversationId: 'c1' },
    stageVariables: null,
    requestContext: { requestId: 'req-1', authorizer } as unknown as ChainEvent['requestContext'],
    body: JSON.stringify({ body: 'hello' }),
    isBase64Encoded: false,
    ...overrides,
  };
}

function context(remainingMs = 10_000): Context {
  const deadline = Date.now() + remainingMs;
  return { getRemainingTimeInMillis: () => deadline - Date.now() } as unknown as Context;
}

const ok = createApiHandler(addInternalNote, async ({ tenantId, body }) => ({
  status: 201,
  body: { tenantId, text: body.body },
}));

describe('the API chain', () => {
  it('passes the authorised tenant and the validated body to the handler', async () => {
    const response = await ok(event(), context());
    expect(response.statusCode).toBe(201);
    expect(JSON.parse(response.body)).toEqual({ tenantId: 'acme', text: 'hello' });
    expect(response.headers).toMatchObject({ 'X-Request-Id': 'req-1', 'Cache-Control': 'no-store' });
  });

  it('fails closed without the authorizer context (401), whatever the path says', async () => {
    for (const authorizer of [null, {}, { keyId: 'k1' }, { keyId: '', tenants: 'acme', scopes: 'cxm:*' }]) {
      const response = await ok(event({}, authorizer), context());
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(response.body).code).toBe('Unauthenticated');
    }
  });

  it('decodes a base64 body and counts its raw bytes', async () => {
    const body = Buffer.from(JSON.stringify({ body: 'é'.repeat(16000) })).toString('base64');
    expect((await ok(event({ body, isBase64Encoded: true }), context())).statusCode).toBe(201);
    const tooBig = Buffer.from(JSON.stringify({ body: 'é'.repeat(16500) })).toString('base64');
    expect((await ok(event({ body: tooBig, isBase64Encoded: true }), context())).statusCode).toBe(413);
  });

  it('refuses a body that is not UTF-8', async () => {
    const body = Buffer.from([0x7b, 0x22, 0x62, 0x22, 0x3a, 0xff, 0x7d]).toString('base64');
    const response = await ok(event({ body, isBase64Encoded: true }), context());
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).message).toMatch(/not valid JSON/);
  });

  it('refuses a repeated query parameter', async () => {
    const response = await ok(
      event({ multiValueQueryStringParameters: { a: ['1', '2'] }, queryStringParameters: { a: '2' } }),
      context(),
    );
    expect(response.statusCode).toBe(400);
  });

  it('answers 504 GatewayTimeout itself before the function deadline', async () => {
    const slow = createApiHandler(
      addInternalNote,
      () => new Promise((resolve) => setTimeout(() => resolve({ status: 201, body: {} }), 5_000)),
    );
    const response = await slow(event(), context(700));
    expect(response.statusCode).toBe(504);
    expect(JSON.parse(response.body)).toEqual({
      code: 'GatewayTimeout',
      message: expect.stringMatching(/may have completed/),
    });
    expect(response.headers).toMatchObject({ 'X-Request-Id': 'req-1' });
  });

  it("one invocation's deadline aborts its own signal only, not another's running beside it", async () => {
    const signals: Array<{ aborted: boolean }> = [];
    const handler = createApiHandler(addInternalNote, async ({ signal }) => {
      signals.push(signal);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return { status: signal.aborted ? 500 : 201, body: {} };
    });
    // The first reaches its deadline (700 ms less the 500 ms margin) while the second is still running.
    const [timedOut, unhurried] = await Promise.all([handler(event(), context(700)), handler(event(), context(5_000))]);
    expect(timedOut.statusCode).toBe(504);
    expect(unhurried.statusCode).toBe(201);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);
  });

  it('a deadline nearer than every other under way still comes on time', async () => {
    const answeredAt: Record<string, number> = {};
    const handler = (name: string, workMs: number) =>
      createApiHandler(addInternalNote, async ({ signal }) => {
        await new Promise((resolve) => setTimeout(resolve, workMs));
        answeredAt[name] = Date.now();
        return { status: signal.aborted ? 500 : 201, body: {} };
      });
    // The unhurried request starts first, so its deadline (20 s away) is the one the process waits for.
    const unhurried = handler('unhurried', 1_500)(event(), context(20_000));
    const hurried = await handler('hurried', 10_000)(event(), context(700));
    const hurriedAt = Date.now();
    expect(hurried.statusCode).toBe(504);
    expect((await unhurried).statusCode).toBe(201);
    expect(hurriedAt).toBeLessThan(answeredAt.unhurried!);
  });

  it('at the deadline the work is aborted, and the 504 leaves only once the aborted work has ended', async () => {
    let endedAt = 0;
    const handler = createApiHandler(addInternalNote, ({ signal }) => {
      return new Promise((_resolve, reject) => {
        // A store call that takes 150 ms to give up once aborted.
        signal.onabort = () =>
          setTimeout(() => {
            endedAt = Date.now();
            reject(new Error('aborted'));
          }, 150);
      });
    });
    const response = await handler(event(), context(700));
    const answeredAt = Date.now();
    expect(response.statusCode).toBe(504);
    expect(endedAt).toBeGreaterThan(0);
    expect(endedAt).toBeLessThanOrEqual(answeredAt);
  });

  it('work that ignores the abort still gets its 504 when the grace is up', async () => {
    // It never settles: without the grace's own timer this invocation would never answer.
    const deaf = createApiHandler(addInternalNote, () => new Promise(() => undefined));
    const response = await deaf(event(), context(700));
    expect(response.statusCode).toBe(504);
  });

  it('maps store throttling to 503 with Retry-After and the common headers', async () => {
    const throttled = createApiHandler(addInternalNote, () =>
      Promise.reject(new ThrottlingException({ message: 'slow down', $metadata: {} })),
    );
    const response = await throttled(event(), context());
    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({
      'Retry-After': '1',
      'X-Request-Id': 'req-1',
      'Content-Type': 'application/json; charset=utf-8',
    });
  });

  it('maps an unexpected failure to 502 BadGateway', async () => {
    const broken = createApiHandler(addInternalNote, () => Promise.reject(new TypeError('bug')));
    const response = await broken(event(), context());
    expect(response.statusCode).toBe(502);
    expect(JSON.parse(response.body).code).toBe('BadGateway');
  });

  it('answers a fault of the MCP route with 500 and a body holding only message', async () => {
    const broken = createApiHandler(mcpBots, () => Promise.reject(new TypeError('bug')));
    const response = await broken(
      event(
        { pathParameters: { tenantId: 'acme' } },
        encodeCaller({ keyId: 'k1', tenants: ['acme'], scopes: ['mcp:*'] }),
      ),
      context(),
    );
    expect(response.statusCode).toBe(500);
    expect(Object.keys(JSON.parse(response.body))).toEqual(['message']);
    expect(response.headers).toMatchObject({ 'X-Request-Id': 'req-1' });
  });
});

describe('the Origin check', () => {
  afterEach(() => vi.unstubAllEnvs());
  const mcpCaller = encodeCaller({ keyId: 'k1', tenants: ['acme'], scopes: ['mcp:*'] });
  const mcpEvent = (
    headers: Record<string, string>,
    authorizer: Record<string, unknown> | null = mcpCaller,
    tenantId = 'acme',
  ) =>
    event(
      { headers: { 'Content-Type': 'application/json', ...headers }, pathParameters: { tenantId }, body: '{}' },
      authorizer,
    );
  const reached: string[] = [];
  const mcp = createApiHandler(mcpBots, async ({ tenantId }) => {
    reached.push(tenantId);
    return { status: 200, body: {} };
  });

  it('refuses an Origin not allowed with 403 PermissionDenied and the common headers, before the handler runs', async () => {
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, 'https://app.example.com');
    reached.length = 0;
    const response = await mcp(mcpEvent({ Origin: 'https://evil.example.com' }), context());
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ code: 'PermissionDenied', message: FOREIGN_ORIGIN_MESSAGE });
    expect(response.headers).toMatchObject({
      'X-Request-Id': 'req-1',
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
    });
    expect(reached).toEqual([]);
  });

  it('passes an allowed Origin and a request without one', async () => {
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, 'https://app.example.com');
    expect((await mcp(mcpEvent({ origin: 'https://app.example.com' }), context())).statusCode).toBe(200);
    expect((await mcp(mcpEvent({}), context())).statusCode).toBe(200);
  });

  it("runs after authorization: 401 and the key's own 403 come first", async () => {
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, '');
    expect((await mcp(mcpEvent({ Origin: 'https://evil.example.com' }, null), context())).statusCode).toBe(401);
    const otherTenant = await mcp(mcpEvent({ Origin: 'https://evil.example.com' }, mcpCaller, 'globex'), context());
    expect(JSON.parse(otherTenant.body)).toEqual({ code: 'PermissionDenied', message: PERMISSION_DENIED_MESSAGE });
  });

  it('refuses a Host name outside CXM_ALLOWED_HOSTS when that is set (the local gateway), on any port', async () => {
    vi.stubEnv(FUNCTION_ENV.allowedHosts, '127.0.0.1');
    const foreign = await mcp(mcpEvent({ Host: 'evil.example.com:3000' }), context());
    expect(foreign.statusCode).toBe(403);
    expect(JSON.parse(foreign.body)).toEqual({ code: 'PermissionDenied', message: FOREIGN_HOST_MESSAGE });
    expect((await mcp(mcpEvent({ Host: '127.0.0.1:3000' }), context())).statusCode).toBe(200);
    expect((await mcp(mcpEvent({ Host: '127.0.0.1:9000' }), context())).statusCode).toBe(200);
  });

  it('is left out of routes that do not declare it', async () => {
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, '');
    vi.stubEnv(FUNCTION_ENV.allowedHosts, '127.0.0.1');
    const response = await ok(
      event({
        headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example.com', Host: 'evil.example.com' },
      }),
      context(),
    );
    expect(response.statusCode).toBe(201);
  });
});
