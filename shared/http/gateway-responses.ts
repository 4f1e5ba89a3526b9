/**
 * The errors API Gateway answers by itself, before or instead of a function. CDK turns each into
 * a gateway response; the local gateway answers with the very same status, code and message, so
 * a client sees one behaviour on a laptop and in the cloud.
 */

import {
  BAD_GATEWAY_MESSAGE,
  BEARER_CHALLENGE,
  GATEWAY_TIMEOUT_MESSAGE,
  PERMISSION_DENIED_MESSAGE,
  UNAUTHENTICATED_MESSAGE,
} from '#shared/api/api-error';
import type { ErrorCode } from '#shared/schemas/error-body';

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
  | 'BAD_REQUEST_PARAMETERS'
  | 'BAD_REQUEST_BODY'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INVALID_API_KEY'
  | 'WAF_FILTERED'
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

const unauthenticated: GatewayResponseSpec = {
  status: 401,
  code: 'Unauthenticated',
  message: UNAUTHENTICATED_MESSAGE,
  headers: BEARER_CHALLENGE,
};

const noOperation: GatewayResponseSpec = {
  status: 404,
  code: 'NotFound',
  message: 'No operation matches this method and path.',
};

export const gatewayResponses: Record<GatewayResponseType, GatewayResponseSpec> = {
  UNAUTHORIZED: unauthenticated,
  ACCESS_DENIED: { status: 403, code: 'PermissionDenied', message: PERMISSION_DENIED_MESSAGE },
  // API Gateway answers an unknown path or method with this type, before any authorizer runs.
  MISSING_AUTHENTICATION_TOKEN: noOperation,
  REQUEST_TOO_LARGE: { status: 413, code: 'PayloadTooLarge', message: 'The request is too large.' },
  THROTTLED: rateLimited('rate limit'),
  QUOTA_EXCEEDED: rateLimited('quota'),
  RESOURCE_NOT_FOUND: noOperation,
  BAD_REQUEST_PARAMETERS: {
    status: 400,
    code: 'BadRequest',
    message: 'The request parameters are invalid (for example a path segment that is not valid percent-encoding).',
  },
  BAD_REQUEST_BODY: { status: 400, code: 'BadRequest', message: 'The request body is invalid.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 400,
    code: 'BadRequest',
    message: 'The media type of the request is not supported; send application/json.',
  },
  INVALID_API_KEY: unauthenticated,
  WAF_FILTERED: { status: 403, code: 'PermissionDenied', message: PERMISSION_DENIED_MESSAGE },
  AUTHORIZER_FAILURE: authorizerUnavailable,
  AUTHORIZER_CONFIGURATION_ERROR: authorizerUnavailable,
  INTEGRATION_FAILURE: { status: 502, code: 'BadGateway', message: BAD_GATEWAY_MESSAGE },
  INTEGRATION_TIMEOUT: { status: 504, code: 'GatewayTimeout', message: GATEWAY_TIMEOUT_MESSAGE },
  // Any other 4xx API Gateway makes keeps its status; its code is the spec's catch-all for 4xx.
  DEFAULT_4XX: { code: 'BadRequest', message: 'The request was refused by the gateway.' },
  DEFAULT_5XX: {
    status: 502,
    code: 'BadGateway',
    message: 'The gateway could not complete the request. If the request was a write, it may have completed.',
  },
};
