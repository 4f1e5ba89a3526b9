/**
 * A table's stream record as the webhook event it is (shared/webhook-functions.ts picks the
 * records): a note inserted is `note.created` with the note as its 201 answered it; a job that left
 * `started` is `voc.job.completed` or `voc.job.failed` with the job as its status read answers it; a
 * document written through the API is `provisioning.document.changed` (a first version is
 * `created`), with the version's number. The tenant comes from the item, written there by the store that wrote the item from
 * the authorised request.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { API_AUTHOR } from '#shared/domain/notes/build-note';
import { documentChanged, noteCreated, vocJobEnded, type WebhookEvent } from '#shared/domain/webhooks/webhook-events';
import type { TableId } from './table-specs.ts';
import { toJob } from './voc-jobs-store.ts';

/** The part of a stream record this reads (Lambda's DynamoDB stream event record, or GetRecords'). */
export interface TableStreamRecord {
  eventName?: string;
  dynamodb?: {
    NewImage?: Record<string, AttributeValue>;
    OldImage?: Record<string, AttributeValue>;
  };
}

/**
 * The event a record of `table`'s stream is, with its tenant; undefined for a record that is none.
 *
 * @example const found = webhookEventOf('conversations', record); if (found) await fanOutEvent(deps, found.tenantId, found.event);
 */
export function webhookEventOf(
  table: TableId,
  record: TableStreamRecord,
): { tenantId: string; event: WebhookEvent } | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image) return undefined;
  const item = unmarshall(image as Parameters<typeof unmarshall>[0]);
  const tenantId = item.tenantId;
  if (typeof tenantId !== 'string') return undefined;
  switch (table) {
    case 'conversations': {
      if (record.eventName !== 'INSERT' || item.kind !== 'note') return undefined;
      const note = {
        id: String(item.id),
        createdAt: String(item.createdAt),
        visibility: 'internal' as const,
        author: { ...API_AUTHOR },
      };
      return { tenantId, event: noteCreated(tenantId, String(item.conversationId), note) };
    }
    case 'vocJobs': {
      const old = record.dynamodb?.OldImage;
      const was = old ? unmarshall(old as Parameters<typeof unmarshall>[0]).status : undefined;
      if (record.eventName !== 'MODIFY' || was !== 'started') return undefined;
      if (item.status !== 'completed' && item.status !== 'failed') return undefined;
      const endedAt = typeof item.finishedAt === 'number' ? item.finishedAt : Date.now();
      return { tenantId, event: vocJobEnded(tenantId, toJob(item), new Date(endedAt)) };
    }
    case 'documents': {
      if (item.change !== 'replaced' && item.change !== 'merged' && item.change !== 'restored') return undefined;
      const version = Number(item.version);
      const change = item.change === 'replaced' && version === 1 ? 'created' : item.change;
      const written = { collection: String(item.collection), documentId: String(item.sk), etag: String(item.etag) };
      return {
        tenantId,
        event: documentChanged(tenantId, { ...written, version, change }, new Date(String(item.updatedAt))),
      };
    }
    default:
      return undefined;
  }
}
