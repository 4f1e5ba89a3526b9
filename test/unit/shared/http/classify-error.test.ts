import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/api/api-error';
import type { ChainEvent } from '#shared/http/api-types';
import { classifyError } from '#shared/http/classify-error';
import { logger } from '#shared/http/logger';
import { mapError } from '#shared/http/map-error';
import { StoreUnavailableError } from '#shared/store/store-unavailable-error';

describe("error classification (the chain's error mapping)", () => {
  it('keeps ApiErrors as they are', () => {
    const error = new ApiError(409, 'Conflict', 'closed');
    expect(classifyError(error)).toEqual({ apiError: error, unexpected: false });
  });

  it.each([
    ['DynamoDB throttling', new ThrottlingException({ message: 'slow down', $metadata: {} })],
    [
      'a 500 from the service',
      Object.assign(new Error('boom'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }),
    ],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['exhausted transaction conflicts', new StoreUnavailableError('conflicts')],
  ])('%s is 503 ServiceUnavailable with Retry-After', (_name, error) => {
    const { apiError, unexpected } = classifyError(error);
    expect(apiError.status).toBe(503);
    expect(apiError.code).toBe('ServiceUnavailable');
    expect(Number(apiError.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(unexpected).toBe(true);
  });

  it.each([
    new TypeError('x is undefined'),
    'a string',
    undefined,
    Object.assign(new Error('bad'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } }),
  ])('anything unforeseen (%s) is 502 BadGateway', (error) => {
    const { apiError } = classifyError(error);
    expect(apiError.status).toBe(502);
    expect(apiError.code).toBe('BadGateway');
  });

  it('logs an unexpected error with its stack and the request id, and answers {code, message}', async () => {
    const spy = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const request = {
      event: { requestContext: { requestId: 'req-123' } } as unknown as ChainEvent,
      context: {} as never,
      response: undefined as unknown as APIGatewayProxyResult,
      error: new TypeError('kaboom'),
      internal: {},
    };
    await mapError().onError!(request as never);
    expect(spy).toHaveBeenCalledWith(
      'request failed',
      expect.objectContaining({ error: request.error, requestId: 'req-123', status: 502 }),
    );
    expect((spy.mock.calls[0]![1] as { error: Error }).error.stack).toContain('kaboom');
    expect(request.response.statusCode).toBe(502);
    expect(JSON.parse(request.response.body)).toEqual({
      code: 'BadGateway',
      message: expect.stringMatching(/may have completed/),
    });
  });
});
