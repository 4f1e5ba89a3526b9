/** POST .../{collection}/{docId}/versions/current: create (201) or replace (200), no merge (provisioning documents, safe retries, conditional requests). */
import { preconditionFailed } from '#shared/api/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { documentJsonOr413, requireStorableDocId } from '#shared/http/document-bounds';
import { versionAnswer } from '#shared/http/document-version-headers';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { readPreconditions } from '#shared/http/read-preconditions';
import { replaceCurrentDocument } from '#shared/schemas/route-validators.generated';
import { documentsStore, idempotencyLedger } from '#shared/store/function-stores';

const documents = documentsStore();
const ledger = idempotencyLedger();

export const handler = createApiHandler(
  replaceCurrentDocument,
  async ({ tenantId, path, body, signal, idempotency, http, caller }) => {
    const docId = requireStorableDocId(path.docId);
    const json = documentJsonOr413(body);
    const answer = (written: { created: boolean; etag: string; version: number }) =>
      versionAnswer(http.selfUrl, { ...written, json }, written.created ? 201 : 200);
    const outcome = await documents.replace(tenantId, path.collection, docId, json, {
      signal,
      preconditions: readPreconditions(http),
      record: recordAnswer(ledger, idempotency, answer),
      by: caller.keyId,
    });
    if (outcome.kind === 'recorded') return replayRecorded(outcome.record, idempotency);
    if (outcome.kind === 'precondition-failed') {
      throw preconditionFailed(path.docId);
    }
    return answer(outcome);
  },
);
