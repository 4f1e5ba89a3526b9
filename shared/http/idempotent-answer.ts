/**
 * A handler's side of safe retries (Idempotency-Key): the answer a keyed write records in its own
 * transaction, and the answer to a request whose key is already recorded: the same status, body and
 * headers plus `Idempotent-Replayed: true` when it is the same request, 422 when it is another.
 */

import { idempotencyKeyReused } from '#shared/api/api-error';
import type { IdempotencyClaim, IdempotencyRecord } from '#shared/domain/idempotency/recorded-response';
import { recordedHeaders } from '#shared/domain/idempotency/recorded-response';
import type { IdempotencyLedger, RecordRequest } from '#shared/store/idempotency-ledger';
import { type ApiResult, resultBodyText } from './api-types.ts';

export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The record request of a keyed write, or undefined without a key. */
export function recordAnswer<Written>(
  ledger: IdempotencyLedger,
  claim: IdempotencyClaim | undefined,
  answer: (written: Written) => ApiResult,
): RecordRequest<Written> | undefined {
  if (!claim) return undefined;
  return {
    ledger,
    claim,
    response: (written) => {
      const result = answer(written);
      // The very text the chain sends, so a replay is byte for byte the first answer.
      return { status: result.status, bodyText: resultBodyText(result), headers: recordedHeaders(result.headers) };
    },
  };
}

export function replayRecorded(record: IdempotencyRecord, claim: IdempotencyClaim | undefined): ApiResult {
  if (!claim || record.fingerprint !== claim.fingerprint) throw idempotencyKeyReused();
  const { status, bodyText, headers } = record.response;
  return { status, bodyText, headers: { ...headers, [REPLAYED_HEADER]: 'true' } };
}
