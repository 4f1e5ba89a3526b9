/** PUT .../{collection}/{docId}/versions/current: RFC 7396 merge into the existing document (provisioning documents, safe retries, conditional requests). */

import { notFound, preconditionFailed } from '#shared/api/api-error';
import { applyMergePatch } from '#shared/domain/documents/apply-merge-patch';
import { noSuchDocument } from '#shared/domain/documents/document-versions';
import { createApiHandler } from '#shared/http/create-api-handler';
import { documentJsonOr413, requireStorableDocId } from '#shared/http/document-bounds';
import { versionAnswer } from '#shared/http/document-version-headers';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { readPreconditions } from '#shared/http/read-preconditions';
import { mergeCurrentDocument } from '#shared/schemas/route-validators.generated';
import { documentsStore, idempotencyLedger } from '#shared/store/function-stores';

const documents = documentsStore();
const ledger = idempotencyLedger();

export const handler = createApiHandler(
  mergeCurrentDocument,
  async ({ tenantId, path, body, signal, idempotency, http, caller }) => {
    const docId = requireStorableDocId(path.docId);
    const answer = (written: { json: string; etag: string; version: number }) => versionAnswer(http.selfUrl, written);
    const outcome = await documents.update(
      tenantId,
      path.collection,
      docId,
      (current) => documentJsonOr413(applyMergePatch(current, body)),
      {
        signal,
        preconditions: readPreconditions(http),
        record: recordAnswer(ledger, idempotency, answer),
        by: caller.keyId,
      },
    );
    switch (outcome.kind) {
      case 'recorded':
        return replayRecorded(outcome.record, idempotency);
      case 'absent':
        throw notFound(noSuchDocument(path, 'create it with POST'));
      case 'precondition-failed':
        throw preconditionFailed(path.docId);
      default:
        return answer(outcome);
    }
  },
);
