/**
 * Which stream records are webhook events, and what each event carries: the note as its 201
 * answered it (no body), the job as its status read answers it, the document's change with a first
 * version called `created`; anything else (a conversation, a job still started, an import) is none.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { webhookEventOf } from '#shared/store/webhook-stream-events';

const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true });

describe('webhookEventOf', () => {
  it('a note inserted is note.created, with the note as its 201 answered it', () => {
    const record = {
      eventName: 'INSERT',
      dynamodb: {
        NewImage: image({
          pk: 'acme#conv-1',
          sk: 'NOTE#n-1',
          kind: 'note',
          tenantId: 'acme',
          conversationId: 'conv-1',
          id: 'n-1',
          createdAt: '2026-11-27T08:00:00.000Z',
          body: 'never sent',
        }),
      },
    };
    expect(webhookEventOf('conversations', record)).toEqual({
      tenantId: 'acme',
      event: {
        type: 'note.created',
        timestamp: '2026-11-27T08:00:00.000Z',
        data: {
          tenantId: 'acme',
          conversationId: 'conv-1',
          note: {
            id: 'n-1',
            createdAt: '2026-11-27T08:00:00.000Z',
            visibility: 'internal',
            author: { type: 'system', id: null, name: 'API' },
          },
        },
      },
    });
    expect(JSON.stringify(webhookEventOf('conversations', record))).not.toContain('never sent');
  });

  it('a conversation written is none', () => {
    const record = {
      eventName: 'INSERT',
      dynamodb: { NewImage: image({ pk: 'acme#conv-1', sk: 'CONVERSATION', kind: 'conversation', tenantId: 'acme' }) },
    };
    expect(webhookEventOf('conversations', record)).toBeUndefined();
  });

  const job = {
    pk: 'acme#job-1',
    tenantId: 'acme',
    jobId: 'job-1',
    started: 1_764_230_400_000,
    file: 'recordings/acme/job-1.wav',
    recordingId: 'rec-job-1',
    contentType: 'audio/wav',
    uploadExpiresAt: 1_764_231_300_000,
    keyId: 'abc123def456',
  };

  it('a job that left started is voc.job.failed with its reason, at its end, without its upload', () => {
    const record = {
      eventName: 'MODIFY',
      dynamodb: {
        OldImage: image({ ...job, status: 'started' }),
        NewImage: image({ ...job, status: 'failed', failureReason: 'not audio', finishedAt: 1_764_231_000_000 }),
      },
    };
    expect(webhookEventOf('vocJobs', record)).toEqual({
      tenantId: 'acme',
      event: {
        type: 'voc.job.failed',
        timestamp: new Date(1_764_231_000_000).toISOString(),
        data: {
          tenantId: 'acme',
          job: {
            id: 'job-1',
            status: 'failed',
            started: 1_764_230_400_000,
            file: 'recordings/acme/job-1.wav',
            recordingId: 'rec-job-1',
            failureReason: 'not audio',
          },
        },
      },
    });
  });

  it('a job modified while started, or an ended job modified again, is none', () => {
    const started = {
      eventName: 'MODIFY',
      dynamodb: { OldImage: image({ ...job, status: 'started' }), NewImage: image({ ...job, status: 'started' }) },
    };
    const again = {
      eventName: 'MODIFY',
      dynamodb: { OldImage: image({ ...job, status: 'completed' }), NewImage: image({ ...job, status: 'completed' }) },
    };
    expect(webhookEventOf('vocJobs', started)).toBeUndefined();
    expect(webhookEventOf('vocJobs', again)).toBeUndefined();
  });

  const document = {
    pk: 'acme#bots',
    sk: 'bot-1',
    tenantId: 'acme',
    collection: 'bots',
    data: '{"name":"Helper"}',
    etag: 'k3Jv0cQ9',
    updatedAt: '2026-11-27T08:00:00.000Z',
  };

  it.each([
    [1, 'replaced', 'created'],
    [2, 'replaced', 'replaced'],
    [3, 'merged', 'merged'],
    [4, 'restored', 'restored'],
  ])(
    'a document at version %d written as %s is provisioning.document.changed, %s, with its ETag and number',
    (version, change, said) => {
      const record = {
        eventName: version === 1 ? 'INSERT' : 'MODIFY',
        dynamodb: { NewImage: image({ ...document, version, change }) },
      };
      expect(webhookEventOf('documents', record)).toEqual({
        tenantId: 'acme',
        event: {
          type: 'provisioning.document.changed',
          timestamp: '2026-11-27T08:00:00.000Z',
          data: {
            tenantId: 'acme',
            collection: 'bots',
            documentId: 'bot-1',
            etag: '"k3Jv0cQ9"',
            version,
            change: said,
          },
        },
      });
    },
  );

  it("a document an operator's import wrote (no change) is none", () => {
    const record = { eventName: 'INSERT', dynamodb: { NewImage: image({ ...document, version: 1 }) } };
    expect(webhookEventOf('documents', record)).toBeUndefined();
  });
});
