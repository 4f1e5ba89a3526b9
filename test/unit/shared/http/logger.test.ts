/**
 * The chain's log context and what authorization adds: every log line of a request carries its request id,
 * route id, tenant and key id, and the key itself (the Authorization header) never reaches a log,
 * not even the fault log of an unexpected error.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeCaller } from '#shared/auth/authorizer-context';
import type { ChainEvent } from '#shared/http/api-types';
import { createApiHandler } from '#shared/http/create-api-handler';
import { logger } from '#shared/http/logger';
import { addInternalNote } from '#shared/schemas/route-validators.generated';
import { type CapturedLines, captureJsonLines } from '#test/support/capture-json-lines';

const SECRET = 'Zx9wQ4rT7uP2sV5yB8nM1kL3jH6gF0dS4aQ7wE2r';
const KEY = `cxm_k1abcdefghij_${SECRET}`;

function event(
  requestId: string,
  caller = { keyId: 'k1abcdefghij', tenants: ['acme'], scopes: ['cxm:*'] },
): ChainEvent {
  return {
    resource: '',
    path: '/x',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    multiValueHeaders: { Authorization: [`Bearer ${KEY}`] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { tenantId: caller.tenants[0]!, conversationId: 'c1' },
    stageVariables: null,
    requestContext: { requestId, authorizer: encodeCaller(caller) } as unknown as ChainEvent['requestContext'],
    body: JSON.stringify({ body: 'hello' }),
    isBase64Encoded: false,
  };
}

const context = () =>
  ({ getRemainingTimeInMillis: () => 10_000, functionName: 'cxm-test-addInternalNote' }) as unknown as Context;

// The test config silences the logger; here its lines are the subject. Set before the logger is
// made: Powertools puts each invocation back on the level it was made with.
const levelBefore = vi.hoisted(() => {
  const before = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  return before;
});
afterAll(() => {
  if (levelBefore === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
  else process.env.POWERTOOLS_LOG_LEVEL = levelBefore;
});

let output: CapturedLines;

beforeEach(() => {
  output = captureJsonLines();
});

afterEach(() => {
  output.restore();
});

const lineWith = (message: string) => output.lines.find((line) => line.message === message);

describe('the log context', () => {
  it("a handler's log line carries request id, route, tenant and key id, and not the key", async () => {
    const handler = createApiHandler(addInternalNote, async () => {
      logger.info('handled');
      return { status: 201, body: {} };
    });
    expect((await handler(event('req-1'), context())).statusCode).toBe(201);
    expect(lineWith('handled')).toMatchObject({
      requestId: 'req-1',
      route: 'addInternalNote',
      tenantId: 'acme',
      keyId: 'k1abcdefghij',
    });
    expect(output.text()).not.toContain(SECRET);
  });

  it('the fault log of an unexpected error carries the same context, and not the key', async () => {
    const handler = createApiHandler(addInternalNote, () =>
      Promise.reject(new TypeError(`bug while handling request`)),
    );
    expect((await handler(event('req-2'), context())).statusCode).toBe(502);
    expect(lineWith('request failed')).toMatchObject({
      requestId: 'req-2',
      route: 'addInternalNote',
      tenantId: 'acme',
      keyId: 'k1abcdefghij',
    });
    expect(output.text()).not.toContain(SECRET);
  });

  it("one request's caller does not leak into the next request's lines", async () => {
    const handler = createApiHandler(addInternalNote, async () => {
      logger.info('handled');
      return { status: 201, body: {} };
    });
    await handler(event('req-3'), context());
    await handler(event('req-4', { keyId: 'k2abcdefghij', tenants: ['beta'], scopes: ['cxm:*'] }), context());
    const lines = output.lines.filter((line) => line.message === 'handled');
    expect(lines.map((line) => [line.requestId, line.tenantId, line.keyId])).toEqual([
      ['req-3', 'acme', 'k1abcdefghij'],
      ['req-4', 'beta', 'k2abcdefghij'],
    ]);
  });
  it("a request's caller leaves the logger with its answer: a line logged after it carries none of it", async () => {
    const handler = createApiHandler(addInternalNote, async () => ({ status: 201, body: {} }));
    await handler(event('req-5'), context());
    const failing = createApiHandler(addInternalNote, () => Promise.reject(new TypeError('bug')));
    await failing(event('req-6'), context());
    logger.info('between requests');
    const line = lineWith('between requests');
    expect(line).toBeDefined();
    expect(line).not.toHaveProperty('tenantId');
    expect(line).not.toHaveProperty('keyId');
    expect(line).not.toHaveProperty('requestId');
  });
});

describe('the log context of concurrent requests in one process (the sources runtime)', () => {
  it('refuses to start the scope in a process whose first AWS SDK call made the store single-context', () => {
    // A fresh process, as one that forgot prepareInvocationStore would be.
    const script = `
      const { InvokeStore } = await import('@aws/lambda-invoke-store');
      await InvokeStore.getInstanceAsync();
      const { invocationScope } = await import(${JSON.stringify(fileURLToPath(new URL('../../../../infra/local/runtime/invocation-scope.ts', import.meta.url)))});
      await invocationScope().then(() => process.stdout.write('started'), (error) => process.stdout.write(error.message));
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'AWS_LAMBDA_MAX_CONCURRENCY')),
    });
    expect(run.stdout).toMatch(/single-context before the sources runtime started/);
  });

  let restoreEnv: () => void = () => undefined;
  afterEach(() => restoreEnv());

  it("each request's lines carry its own tenant and key id, however their steps interleave", async () => {
    // The local runtime serves every function in this one process, as `npm start` does. The
    // store's port is closed, so each request fails at its first store call and logs that, after
    // the other requests' chains have set their own keys in between.
    const saved = { ...process.env };
    restoreEnv = () => {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    };
    const { freePort } = await import('#infra/local/emulators/dynamodb-local');
    const { newLocalCredentials } = await import('#infra/local/emulators/local-identity');
    const { pointAtLocalDynamo } = await import('#infra/local/emulators/point-at-local-dynamo');
    const { allTableSpecs, physicalTableName } = await import('#shared/store/table-specs');
    pointAtLocalDynamo(
      { endpoint: `http://127.0.0.1:${await freePort()}`, credentials: newLocalCredentials() },
      Object.fromEntries(allTableSpecs.map((spec) => [spec.id, physicalTableName('test', spec.id)])) as Parameters<
        typeof pointAtLocalDynamo
      >[1],
    );
    process.env.CXM_RECORDINGS_BUCKET = 'cxm-test-recordings';
    // An AWS SDK call first, as npm start makes before its runtime starts (DynamoDB Local's first
    // answer): the per-invocation store must already be this process's (test/support/runtime-setup.ts).
    const { DynamoDBClient, ListTablesCommand } = await import('@aws-sdk/client-dynamodb');
    await new DynamoDBClient({ maxAttempts: 1 }).send(new ListTablesCommand({})).catch(() => undefined);
    const { startSourceRuntime } = await import('#infra/local/runtime/source-runtime');
    const runtime = await startSourceRuntime();
    const handler = runtime.handlers.get('addInternalNote')!;
    const callers = [
      { keyId: 'k1abcdefghij', tenants: ['acme'], scopes: ['cxm:*'] },
      { keyId: 'k2abcdefghij', tenants: ['beta'], scopes: ['cxm:*'] },
    ];
    const requests = Array.from({ length: 8 }, (_, i) => ({ requestId: `req-c${i}`, caller: callers[i % 2]! }));
    const answers = await Promise.all(
      requests.map(({ requestId, caller }) =>
        handler(event(requestId, caller), { ...context(), awsRequestId: requestId } as Context),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(requests.map(() => 503));
    const failures = output.lines.filter((line) => line.message === 'request failed');
    expect(failures).toHaveLength(requests.length);
    for (const line of failures) {
      const sent = requests.find((request) => request.requestId === line.requestId)!;
      expect([line.requestId, line.tenantId, line.keyId]).toEqual([
        sent.requestId,
        sent.caller.tenants[0],
        sent.caller.keyId,
      ]);
    }
    await runtime.close();
  });
});
