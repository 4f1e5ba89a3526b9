/**
 * The errors API Gateway answers by itself, before or instead of a function. CDK turns each into
 * a gateway response; the local gateway answers with the very same status, code and message, so
 * a client sees one behaviour on a laptop and in the cloud.
 */
import type { ErrorCode } from '#shared/schemas/error-body';
import { BAD_GATEWAY_MESSAGE, GATEWAY_TIMEOUT_MESSAGE, PERMISSION_DENIED_MESSAGE, UNAUTHENTICATED_MESSAGE } from './api-error.ts';

export interface GatewayResponseSpec {
  /** Status to answer with; undefined keeps the status API Gateway chose (DEFAULT_4XX). */
  status?: number;
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
}

export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'REQUEST_TOO_LARGE'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'RESOURCE_NOT_FOUND'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

const rateLimited = (what: string): GatewayResponseSpec => ({
  status: 429,
  code: 'RateLimitExceeded',
  message: `The API ${what} was exceeded; retry after the number of seconds in Retry-After.`,
  headers: { 'Retry-After': '1' },
});

const authorizerUnavailable: GatewayResponseSpec = {
  status: 503,
  code: 'ServiceUnavailable',
  message: 'The API key could not be checked; retry later.',
  headers: { 'Retry-After': '1' },
};

const noOperation: GatewayResponseSpec = { status: 404, code: 'NotFound', message: 'No operation matches this method and path.' };

export const gatewayResponses: Record<GatewayResponseType, GatewayResponseSpec> = {
  UNAUTHORIZED: { status: 401, code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE },
  ACCESS_DENIED: { status: 403, code: 'PermissionDenied', message: PERMISSION_DENIED_MESSAGE },
  // API Gateway answers an unknown path or method with this type, before any authorizer runs.
  MISSING_AUTHENTICATION_TOKEN: noOperation,
  REQUEST_TOO_LARGE: { status: 413, code: 'PayloadTooLarge', message: 'The request is too large.' },
  THROTTLED: rateLimited('rate limit'),
  QUOTA_EXCEEDED: rateLimited('quota'),
  RESOURCE_NOT_FOUND: noOperation,
  AUTHORIZER_FAILURE: authorizerUnavailable,
  AUTHORIZER_CONFIGURATION_ERROR: authorizerUnavailable,
  INTEGRATION_FAILURE: { status: 502, code: 'BadGateway', message: BAD_GATEWAY_MESSAGE },
  INTEGRATION_TIMEOUT: { status: 504, code: 'GatewayTimeout', message: GATEWAY_TIMEOUT_MESSAGE },
  DEFAULT_4XX: { code: 'BadRequest', message: 'The request was refused by the gateway.' },
  DEFAULT_5XX: {
    status: 502,
    code: 'BadGateway',
    message: 'The gateway could not complete the request. The write may have completed.',
  },
};
