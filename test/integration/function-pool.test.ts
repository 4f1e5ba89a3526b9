/**
 * Bundle mode's execution environments behave as Lambda's: on Lambda's Node, module init once per
 * environment, one invocation at a time per environment, a pool that grows with concurrent
 * requests (up to its cap) and reuses warm environments, Lambda's context object, the timeout
 * enforced by killing and replacing the environment, and crashes and init failures reported with
 * the function's name. Small handler modules written here stand in for bundles.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { lambdaNode } from '#infra/lambda-node';
import { EnvironmentFailure, FunctionError, FunctionPool, type FunctionSpec } from '#infra/local/runtime/function-pool';

const root = mkdtempSync(join(tmpdir(), 'cxm-function-pool-'));
const pools: FunctionPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A function whose bundle is `source` (an ES module exporting `handler`). */
function pool(
  name: string,
  source: string,
  options: Partial<FunctionSpec> & { maxEnvironments?: number; report?: (line: string) => void } = {},
): FunctionPool {
  const codeDir = join(root, name);
  mkdirSync(codeDir, { recursive: true });
  writeFileSync(join(codeDir, 'index.mjs'), source);
  const { maxEnvironments = 4, report, ...spec } = options;
  const created = new FunctionPool(
    {
      functionName: `cxm-test-${name}`,
      handler: 'index.handler',
      codeDir,
      environment: {
        PATH: process.env.PATH ?? '',
        _HANDLER: 'index.handler',
        LAMBDA_TASK_ROOT: codeDir,
        AWS_REGION: 'eu-west-1',
        GREETING: 'hello',
      },
      timeoutSeconds: 10,
      memoryMb: 256,
      ...spec,
    },
    lambdaNode().execPath,
    maxEnvironments,
    { report },
  );
  pools.push(created);
  return created;
}

const describing = `
let inits = 0;
inits++;
export const handler = async (event, context) => {
  if (event.sleepMs) await new Promise((resolve) => setTimeout(resolve, event.sleepMs));
  return {
    pid: process.pid, node: process.version, inits, greeting: process.env.GREETING,
    requestId: context.awsRequestId, functionName: context.functionName, memory: context.memoryLimitInMB,
    remaining: context.getRemainingTimeInMillis(), event,
  };
};`;

interface Described {
  pid: number;
  node: string;
  inits: number;
  greeting: string;
  requestId: string;
  functionName: string;
  memory: string;
  remaining: number;
  event: unknown;
}

describe('an execution environment', () => {
  it("runs on Lambda's Node with the function's environment and Lambda's context", async () => {
    const fn = pool('context', describing);
    const result = (await fn.invoke({ hello: 'world' }, 'request-1')) as Described;
    expect(result).toMatchObject({
      node: lambdaNode().version,
      greeting: 'hello',
      requestId: 'request-1',
      functionName: 'cxm-test-context',
      memory: '256',
      event: { hello: 'world' },
    });
    expect(result.remaining).toBeGreaterThan(8000);
    expect(result.remaining).toBeLessThanOrEqual(10_000);
  });

  it('initialises once and is reused; the cold start reports its init duration', async () => {
    const reports: string[] = [];
    const fn = pool('warm', describing, { report: (line) => reports.push(line) });
    const first = (await fn.invoke({}, 'a')) as Described;
    const second = (await fn.invoke({}, 'b')) as Described;
    expect(second.pid).toBe(first.pid);
    expect(second.inits).toBe(1);
    expect(fn.size).toBe(1);
    expect(reports).toHaveLength(2);
    expect(reports[0]).toMatch(
      /^REPORT RequestId: a\tFunction: cxm-test-warm\tDuration: [\d.]+ ms\tMemory Size: 256 MB\tMax Memory Used: \d+ MB\tInit Duration: [\d.]+ ms$/,
    );
    expect(reports[1]).not.toContain('Init Duration');
  });

  it('grows with concurrent requests, one invocation per environment, and reuses them after', async () => {
    const fn = pool('concurrent', describing);
    const burst = (await Promise.all([1, 2, 3].map((n) => fn.invoke({ sleepMs: 400 }, `burst-${n}`)))) as Described[];
    expect(new Set(burst.map((r) => r.pid)).size).toBe(3);
    const again = (await Promise.all([1, 2, 3].map((n) => fn.invoke({ sleepMs: 100 }, `again-${n}`)))) as Described[];
    expect(new Set(again.map((r) => r.pid))).toEqual(new Set(burst.map((r) => r.pid)));
    expect(again.every((r) => r.inits === 1)).toBe(true);
  });

  it('does not grow past its cap: further requests wait for an environment', async () => {
    const fn = pool('capped', describing, { maxEnvironments: 2 });
    const results = (await Promise.all(
      [1, 2, 3, 4].map((n) => fn.invoke({ sleepMs: 200 }, `capped-${n}`)),
    )) as Described[];
    expect(new Set(results.map((r) => r.pid)).size).toBe(2);
    expect(fn.size).toBe(2);
  });
});

describe('failures', () => {
  it('a handler past its timeout is killed and replaced, as Lambda does', async () => {
    const fn = pool('slow', describing, { timeoutSeconds: 1 });
    const first = (await fn.invoke({}, 'before')) as Described;
    const timedOut = fn.invoke({ sleepMs: 5000 }, 'slow');
    await expect(timedOut).rejects.toThrow(EnvironmentFailure);
    await expect(timedOut).rejects.toMatchObject({ status: 'timeout' });
    await expect(timedOut).rejects.toThrow('cxm-test-slow: Task timed out after 1.00 seconds');
    const after = (await fn.invoke({}, 'after')) as Described;
    expect(after.pid).not.toBe(first.pid);
    expect(after.inits).toBe(1);
  });

  it('a thrown error is a function error with its type and message; the environment lives on', async () => {
    const fn = pool(
      'throws',
      `export const handler = async (event) => { if (event.fail) throw new RangeError('out of range'); return process.pid; };`,
    );
    const pid = await fn.invoke({}, 'ok');
    const failed = fn.invoke({ fail: true }, 'fails');
    await expect(failed).rejects.toBeInstanceOf(FunctionError);
    await expect(failed).rejects.toMatchObject({
      errorType: 'RangeError',
      message: 'out of range',
      functionName: 'cxm-test-throws',
    });
    expect(await fn.invoke({}, 'ok-again')).toBe(pid);
  });

  it("a response past Lambda's 6 MB is a function error, as Lambda answers it", async () => {
    const fn = pool(
      'large',
      `export const handler = async (event) => ({ statusCode: 200, body: 'x'.repeat(event.bytes) });`,
    );
    expect(await fn.invoke({ bytes: 6_000_000 }, 'fits')).toMatchObject({ statusCode: 200 });
    await expect(fn.invoke({ bytes: 6_300_000 }, 'too-large')).rejects.toMatchObject({
      errorType: 'Function.ResponseSizeTooLarge',
    });
  });

  it('a crash (an error nobody awaited) ends the environment and the request; the next gets a new one', async () => {
    const fn = pool(
      'crashes',
      `export const handler = async (event) => { if (event.crash) { setTimeout(() => { throw new Error('boom'); }, 10); await new Promise(() => {}); } return process.pid; };`,
    );
    const pid = await fn.invoke({}, 'ok');
    await expect(fn.invoke({ crash: true }, 'crash')).rejects.toThrow(/cxm-test-crashes: Runtime exited .*Error: boom/);
    const next = await fn.invoke({}, 'next');
    expect(next).not.toBe(pid);
  });

  it('an init failure is reported with the function name and the error, every time it is tried', async () => {
    const fn = pool(
      'broken',
      `if (!process.env.CXM_TABLE_NOTES) throw new Error('CXM_TABLE_NOTES is not set'); export const handler = async () => 1;`,
    );
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(fn.invoke({}, `try-${attempt}`)).rejects.toThrow(
        /^cxm-test-broken: init failed after \d+ ms: Error: CXM_TABLE_NOTES is not set$/,
      );
    }
  });

  it('a handler that is not exported is an init failure naming it', async () => {
    const fn = pool('no-export', `export const other = async () => 1;`);
    await expect(fn.invoke({}, 'x')).rejects.toThrow(
      /cxm-test-no-export: init failed .*Runtime\.HandlerNotFound: index\.handler is undefined or not exported/,
    );
  });
});
