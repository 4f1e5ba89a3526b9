/** POST .../conversations/{conversationId}/internal-notes (note rules, safe retries). */

import { conflict, notFound } from '#shared/api/api-error';
import { buildNote } from '#shared/domain/notes/build-note';
import { newNoteId } from '#shared/domain/notes/new-note-id';
import { createApiHandler } from '#shared/http/create-api-handler';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { addInternalNote } from '#shared/schemas/route-validators.generated';
import { conversationsStore, idempotencyLedger } from '#shared/store/function-stores';

const conversations = conversationsStore();
const ledger = idempotencyLedger();

export const handler = createApiHandler(addInternalNote, async ({ tenantId, path, body, signal, idempotency }) => {
  const now = new Date();
  const note = buildNote(newNoteId(now.getTime()), now);
  const answer = { status: 201, body: { note } };
  const outcome = await conversations.addNote(tenantId, path.conversationId, { ...note, body: body.body }, now, {
    signal,
    record: recordAnswer(ledger, idempotency, () => answer),
  });
  if (outcome.kind === 'recorded') return replayRecorded(outcome.record, idempotency);
  if (outcome.kind === 'rejected') {
    const { kind, message } = outcome.rejection;
    throw kind === 'not-found' ? notFound(message) : conflict(message);
  }
  return answer;
});
