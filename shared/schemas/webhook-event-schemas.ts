/**
 * The bodies of webhook deliveries (shared/domain/webhooks/webhook-events.ts): `{type, timestamp,
 * data}`, `data` holding what the API itself answers about the thing. The OpenAPI document
 * describes them in its `webhooks` section.
 */
import { ANALYSIS_KINDS } from '#shared/domain/voc/analysis-kind';
import { JOB_STATUSES } from '#shared/domain/voc/job-status';
import { MAX_VERSION_NUMBER } from './document-version-schemas.ts';

/** Text without control characters but tab and line breaks. */
const PLAIN_TEXT = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$';
const NO_SEPARATORS = '^[^/\\\\]+$';
const instant = { type: 'string', format: 'date-time', maxLength: 30 } as const;
const tenantId = { type: 'string', maxLength: 128, pattern: '^[^/\\\\#]+$', description: 'The tenant.' } as const;

const event = (type: readonly string[], data: Record<string, unknown>, required: readonly string[]) =>
  ({
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', enum: [...type] },
      timestamp: { ...instant, description: 'When the event happened.' },
      data: { type: 'object', required: [...required], additionalProperties: false, properties: data },
    },
  }) as const;

export const NoteCreatedWebhook = {
  $id: 'NoteCreatedWebhook',
  ...event(
    ['note.created'],
    {
      tenantId,
      conversationId: { type: 'string', maxLength: 512, pattern: '^[^/\\\\]+$' },
      note: {
        type: 'object',
        required: ['id', 'createdAt', 'visibility', 'author'],
        additionalProperties: false,
        description: 'The note as its 201 answered it (never its body).',
        properties: {
          id: { type: 'string', maxLength: 64, pattern: '^[0-9A-Za-z]+$' },
          createdAt: instant,
          visibility: { type: 'string', const: 'internal' },
          author: {
            type: 'object',
            required: ['type', 'id', 'name'],
            additionalProperties: false,
            properties: {
              type: { type: 'string', enum: ['agent', 'system'] },
              id: { type: ['string', 'null'], maxLength: 128, pattern: NO_SEPARATORS },
              name: { type: 'string', maxLength: 256, pattern: PLAIN_TEXT },
            },
          },
        },
      },
    },
    ['tenantId', 'conversationId', 'note'],
  ),
} as const;

export const VocJobEndedWebhook = {
  $id: 'VocJobEndedWebhook',
  ...event(
    ['voc.job.completed', 'voc.job.failed'],
    {
      tenantId,
      job: {
        type: 'object',
        required: ['id', 'status', 'started', 'file', 'recordingId'],
        additionalProperties: false,
        description: 'The job as its status read answers it.',
        properties: {
          id: { type: 'string', maxLength: 512, pattern: NO_SEPARATORS },
          status: { type: 'string', enum: [...JOB_STATUSES] },
          started: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          file: { type: 'string', maxLength: 2048, pattern: PLAIN_TEXT },
          recordingId: { type: 'string', maxLength: 600, pattern: NO_SEPARATORS },
          failureReason: { type: 'string', maxLength: 4096, pattern: PLAIN_TEXT },
          analysis: { type: 'string', enum: [...ANALYSIS_KINDS] },
        },
      },
    },
    ['tenantId', 'job'],
  ),
} as const;

export const DocumentChangedWebhook = {
  $id: 'DocumentChangedWebhook',
  ...event(
    ['provisioning.document.changed'],
    {
      tenantId,
      collection: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
      documentId: { type: 'string', maxLength: 512, pattern: '^[^/\\\\]+$' },
      etag: {
        type: 'string',
        maxLength: 64,
        pattern: '^"[^"]+"$',
        description: "The new version's ETag, quoted as the API's `ETag` header gives it.",
      },
      version: {
        type: 'integer',
        format: 'int64',
        minimum: 1,
        maximum: MAX_VERSION_NUMBER,
        description: "The new version's number: `versions/{version}` reads it for as long as the stage keeps it.",
      },
      change: {
        type: 'string',
        enum: ['created', 'replaced', 'merged', 'restored'],
        description: 'Made by a POST, replaced by a POST over it, merged by a PUT, or an earlier version restored.',
      },
    },
    ['tenantId', 'collection', 'documentId', 'etag', 'version', 'change'],
  ),
} as const;
