/**
 * The request logger hands a request's context to Powertools only with the request's first line;
 * what each line carries is what Powertools' own middleware would have given it. The chain's use
 * of it (keys from authorization, concurrent requests) is in logger.test.ts.
 */
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestLogger } from '#shared/http/request-logger';
import { type CapturedLines, captureJsonLines } from '#test/support/capture-json-lines';

const context = (awsRequestId: string) =>
  ({
    awsRequestId,
    functionName: 'cxm-test-fn',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:cxm-test-fn',
    memoryLimitInMB: '1024',
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

let output: CapturedLines;
beforeEach(() => {
  output = captureJsonLines();
});
afterEach(() => {
  output.restore();
  vi.unstubAllEnvs();
});

// The test config silences Powertools through its environment; these loggers are the subject.
const newLogger = () => new RequestLogger({ serviceName: 'cxm-test', logLevel: 'INFO' });
const line = (message: string) => output.lines.find((each) => each.message === message);

describe('RequestLogger', () => {
  it("a line carries its own request's Lambda context, after a request that wrote lines", () => {
    const logger = newLogger();
    logger.beginRequest(context('aws-1'), { requestId: 'r1' });
    logger.info('first');
    logger.endRequest();
    logger.beginRequest(context('aws-2'), { requestId: 'r2' });
    logger.info('second');
    logger.endRequest();
    expect(line('first')).toMatchObject({ function_request_id: 'aws-1', requestId: 'r1' });
    expect(line('second')).toMatchObject({ function_request_id: 'aws-2', requestId: 'r2' });
  });

  it("cold start is the environment's first request, whether or not that request wrote a line", () => {
    // Powertools tells a cold start only in an on-demand environment, as Lambda names it.
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    const logger = newLogger();
    logger.beginRequest(context('aws-1'), {});
    logger.endRequest();
    logger.beginRequest(context('aws-2'), {});
    logger.info('in the second request');
    logger.endRequest();
    expect(line('in the second request')).toMatchObject({ cold_start: false });

    const fresh = newLogger();
    fresh.beginRequest(context('aws-3'), {});
    fresh.info('in the first request');
    fresh.endRequest();
    expect(line('in the first request')).toMatchObject({ cold_start: true });
  });

  it('keys appended before and after the first line reach every later line of the request', () => {
    const logger = newLogger();
    logger.beginRequest(context('aws-1'), { route: 'r' });
    logger.appendKeys({ keyId: 'k1' });
    logger.info('one');
    logger.appendKeys({ tenantId: 't1' });
    logger.info('two');
    logger.endRequest();
    expect(line('one')).toMatchObject({ route: 'r', keyId: 'k1' });
    expect(line('one')).not.toHaveProperty('tenantId');
    expect(line('two')).toMatchObject({ route: 'r', keyId: 'k1', tenantId: 't1' });
  });

  it('a request that never ended (an early answer) leaves nothing to the next one', () => {
    const logger = newLogger();
    logger.beginRequest(context('aws-1'), { requestId: 'r1' });
    logger.appendKeys({ tenantId: 't1' });
    logger.info('written');
    logger.beginRequest(context('aws-2'), { requestId: 'r2' });
    logger.info('next');
    logger.endRequest();
    expect(line('next')).toMatchObject({ requestId: 'r2' });
    expect(line('next')).not.toHaveProperty('tenantId');
  });

  it("keys appended outside a request are Powertools' own, on every line", () => {
    const logger = newLogger();
    logger.appendKeys({ job: 'sweep' });
    logger.info('outside');
    expect(line('outside')).toMatchObject({ job: 'sweep' });
  });
});
