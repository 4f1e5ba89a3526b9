/** The event bodies: what the API answers about the thing, under the type a receiver subscribes to. */
import { describe, expect, it } from 'vitest';
import { buildNote } from '#shared/domain/notes/build-note';
import type { VocJob } from '#shared/domain/voc/job-status';
import { documentChanged, noteCreated, vocJobEnded, webhookBody } from '#shared/domain/webhooks/webhook-events';

const at = new Date('2026-11-27T03:00:00.000Z');
const job: VocJob = { id: 'j-1', status: 'started', started: 1, file: 'acme/j-1/call.wav', recordingId: 'r-1' };

describe('webhook events', () => {
  it('note.created carries the note of the 201, its tenant and conversation, stamped when it was made', () => {
    const note = buildNote('n-1', at);
    expect(JSON.parse(webhookBody(noteCreated('acme', 'conv-1', note)))).toEqual({
      type: 'note.created',
      timestamp: '2026-11-27T03:00:00.000Z',
      data: {
        tenantId: 'acme',
        conversationId: 'conv-1',
        note: { id: 'n-1', createdAt: '2026-11-27T03:00:00.000Z', visibility: 'internal', author: note.author },
      },
    });
  });

  it('a job that ended is voc.job.completed or voc.job.failed with its reason; one still running is no event', () => {
    expect(vocJobEnded('acme', { ...job, status: 'completed', analysis: 'transcription' }, at)).toMatchObject({
      type: 'voc.job.completed',
      data: { tenantId: 'acme', job: { id: 'j-1', status: 'completed', analysis: 'transcription' } },
    });
    const failed = vocJobEnded('acme', { ...job, status: 'failed', failureReason: 'no upload within 1 h' }, at);
    expect(failed).toMatchObject({ type: 'voc.job.failed', data: { job: { failureReason: 'no upload within 1 h' } } });
    expect(() => vocJobEnded('acme', job, at)).toThrow(/has not ended/);
  });

  it("a stored job gives the status read's fields only, never its upload or attempts", () => {
    const stored = {
      ...job,
      status: 'completed' as const,
      upload: { contentType: 'audio/wav', sizeBytes: 44, keyId: 'k-1' },
      attempts: 2,
    };
    expect(vocJobEnded('acme', stored, at).data).toEqual({
      tenantId: 'acme',
      job: { id: 'j-1', status: 'completed', started: 1, file: 'acme/j-1/call.wav', recordingId: 'r-1' },
    });
  });

  it('provisioning.document.changed names the collection, the id, the new ETag as the header gives it, and how', () => {
    expect(
      documentChanged(
        'acme',
        { collection: 'bots', documentId: 'bot-1', etag: 'k3Jv0cQ9', version: 2, change: 'merged' },
        at,
      ),
    ).toEqual({
      type: 'provisioning.document.changed',
      timestamp: '2026-11-27T03:00:00.000Z',
      data: {
        tenantId: 'acme',
        collection: 'bots',
        documentId: 'bot-1',
        etag: '"k3Jv0cQ9"',
        version: 2,
        change: 'merged',
      },
    });
  });
});
