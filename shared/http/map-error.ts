/**
 * The chain's error mapping: every error becomes `{code, message}` with its status; faults are logged; refusals
 * (AuthFailure) and our 503 ServiceUnavailable (emitted as Throttled) are counted.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { RouteSpec } from '#shared/api/route-spec';
import type { ChainEvent } from './api-types.ts';
import { classifyError } from './classify-error.ts';
import { logger } from './logger.ts';
import { APP_METRICS } from './metric-names.ts';
import { countMetric } from './metrics.ts';

export function mapError(route?: Pick<RouteSpec, 'faultBody'>): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return {
    onError: (request) => {
      const { apiError, unexpected } = classifyError(request.error);
      if (apiError.status === 401 || apiError.status === 403) countMetric(APP_METRICS.authFailure);
      else if (apiError.code === 'ServiceUnavailable') countMetric(APP_METRICS.serviceUnavailable);
      if (unexpected) {
        logger.error('request failed', {
          error: request.error as Error,
          status: apiError.status,
          requestId: request.event.requestContext?.requestId,
        });
      }
      request.response =
        route?.faultBody === 'message-only' && apiError.status >= 500
          ? { statusCode: 500, body: JSON.stringify({ message: apiError.message }) }
          : {
              statusCode: apiError.status,
              headers: apiError.headers,
              body: JSON.stringify({ code: apiError.code, message: apiError.message }),
            };
    },
  };
}
