/** POST .../{collection}/{docId}/versions/{version}/restore: a new current version equal to that one (provisioning documents, history, safe retries, conditional requests). */

import { gone, notFound, preconditionFailed } from '#shared/api/api-error';
import { goneReason, missingReason } from '#shared/domain/documents/document-versions';
import { createApiHandler } from '#shared/http/create-api-handler';
import { requireStorableDocId } from '#shared/http/document-bounds';
import { versionAnswer } from '#shared/http/document-version-headers';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { readPreconditions } from '#shared/http/read-preconditions';
import { restoreDocumentVersion } from '#shared/schemas/route-validators.generated';
import { documentsStore, idempotencyLedger } from '#shared/store/function-stores';

const documents = documentsStore();
const ledger = idempotencyLedger();

export const handler = createApiHandler(
  restoreDocumentVersion,
  async ({ tenantId, path, signal, idempotency, http, caller }) => {
    const docId = requireStorableDocId(path.docId);
    const n = Number(path.version);
    const answer = (written: { json: string; etag: string; version: number }) => versionAnswer(http.selfUrl, written);
    const outcome = await documents.restore(tenantId, path.collection, docId, n, {
      signal,
      preconditions: readPreconditions(http),
      record: recordAnswer(ledger, idempotency, answer),
      by: caller.keyId,
    });
    switch (outcome.kind) {
      case 'recorded':
        return replayRecorded(outcome.record, idempotency);
      case 'precondition-failed':
        throw preconditionFailed(path.docId);
      case 'not-found': {
        const { read } = outcome;
        if (read.kind === 'gone') throw gone(goneReason(n, read.retention));
        throw notFound(missingReason(path, n, read.newest));
      }
      default:
        return answer(outcome);
    }
  },
);
