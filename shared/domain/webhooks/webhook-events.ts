/**
 * The events a tenant's endpoints can subscribe to, and the body each delivery carries:
 * `{"type", "timestamp", "data"}`, whose `data` holds what the API itself answers about the thing
 * (the note of the 201, the job of the status read, the document's new ETag), never more. The body
 * is made once per event and endpoint, with its message id, and every attempt and every recover
 * sends those same bytes under that same id.
 */
import type { VersionChange } from '#shared/domain/documents/document-versions';
import { formatEntityTag } from '#shared/domain/documents/entity-tags';
import type { InternalNote } from '#shared/domain/notes/build-note';
import type { VocJob } from '#shared/domain/voc/job-status';

export const WEBHOOK_EVENT_TYPES = [
  'note.created',
  'voc.job.completed',
  'voc.job.failed',
  'provisioning.document.changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** How a document changed: made by a POST, replaced by a POST over it, merged by a PUT, or an earlier version restored. */
export type DocumentChange = VersionChange;

export interface NoteCreatedData {
  tenantId: string;
  conversationId: string;
  note: InternalNote;
}

export interface VocJobEndedData {
  tenantId: string;
  job: VocJob;
}

export interface DocumentChangedData {
  tenantId: string;
  collection: string;
  documentId: string;
  /** The new version's ETag, quoted as the API's `ETag` header gives it. */
  etag: string;
  /** The new version's number (`versions/{version}`). */
  version: number;
  change: DocumentChange;
}

export type WebhookEvent =
  | { type: 'note.created'; timestamp: string; data: NoteCreatedData }
  | { type: 'voc.job.completed' | 'voc.job.failed'; timestamp: string; data: VocJobEndedData }
  | { type: 'provisioning.document.changed'; timestamp: string; data: DocumentChangedData };

/**
 * A committed note, as its 201 answered it.
 *
 * @example noteCreated('acme', 'conv-1', note) // { type: 'note.created', timestamp: note.createdAt, data }
 */
export function noteCreated(tenantId: string, conversationId: string, note: InternalNote): WebhookEvent {
  return { type: 'note.created', timestamp: note.createdAt, data: { tenantId, conversationId, note } };
}

/**
 * A job that ended, as its status read answers it: `voc.job.failed` carries its `failureReason`.
 *
 * @example vocJobEnded('acme', job, new Date()) // { type: 'voc.job.completed', ... }
 */
export function vocJobEnded(tenantId: string, stored: VocJob, at: Date): WebhookEvent {
  if (stored.status === 'started') throw new RangeError(`job ${stored.id} has not ended`);
  const type = stored.status === 'completed' ? 'voc.job.completed' : 'voc.job.failed';
  // The status read's fields, picked: a stored job carries its upload and attempts besides.
  const { id, status, started, file, recordingId, failureReason, analysis } = stored;
  const job: VocJob = {
    id,
    status,
    started,
    file,
    recordingId,
    ...(failureReason !== undefined && { failureReason }),
    ...(analysis !== undefined && { analysis }),
  };
  return { type, timestamp: at.toISOString(), data: { tenantId, job } };
}

/** A document's new version, as the event names it (the ETag unquoted, as the store keeps it). */
export interface DocumentVersionWritten {
  collection: string;
  documentId: string;
  etag: string;
  version: number;
  change: DocumentChange;
}

/**
 * A document's new version.
 *
 * @example documentChanged('acme', { collection: 'bots', documentId: 'bot-1', etag: 'k3Jv0cQ9', version: 2, change: 'merged' }, new Date())
 */
export function documentChanged(tenantId: string, written: DocumentVersionWritten, at: Date): WebhookEvent {
  const { collection, documentId, etag, version, change } = written;
  return {
    type: 'provisioning.document.changed',
    timestamp: at.toISOString(),
    data: { tenantId, collection, documentId, etag: formatEntityTag(etag), version, change },
  };
}

/** The body a delivery sends: the event as JSON, made once and kept byte for byte. */
export const webhookBody = (event: WebhookEvent): string => JSON.stringify(event);
