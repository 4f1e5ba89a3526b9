/**
 * The chain's error mapping, its decision: which response an error becomes. Anything we did not foresee is a
 * 502: the same promise API Gateway makes for a crashed integration (the write may have completed).
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/service-error-classification';
import { ApiError, badGateway, serviceUnavailable, unavailable } from '#shared/api/api-error';
import { SearchUnavailableError } from '#shared/store/opensearch-errors';
import { StoreUnavailableError } from '#shared/store/store-unavailable-error';

export const RETRY_AFTER_SECONDS = 1;

type SdkLikeError = Parameters<typeof isTransientError>[0];

function isAwsUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const sdkError = error as SdkLikeError;
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
}

export interface Classified {
  apiError: ApiError;
  /** True when the error is a fault to investigate (logged with its stack). */
  unexpected: boolean;
}

export function classifyError(error: unknown): Classified {
  if (error instanceof ApiError) return { apiError: error, unexpected: error.status >= 500 };
  // Before the AWS checks: a search failure carries its own code, whatever caused it.
  if (error instanceof SearchUnavailableError) return { apiError: unavailable(RETRY_AFTER_SECONDS), unexpected: true };
  if (error instanceof StoreUnavailableError || isAwsUnavailable(error)) {
    return { apiError: serviceUnavailable(RETRY_AFTER_SECONDS), unexpected: true };
  }
  return { apiError: badGateway(), unexpected: true };
}
