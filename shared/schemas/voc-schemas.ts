import { ANALYSIS_KINDS } from '#shared/domain/voc/analysis-kind';
import { JOB_STATUSES } from '#shared/domain/voc/job-status';
import { RECORDING_CONTENT_TYPES } from '#shared/domain/voc/recording-upload';
import { resourceIdParam, tenantIdParam } from './identifiers.ts';

export const VocJobPath = {
  $id: 'VocJobPath',
  type: 'object',
  required: ['tenantId', 'jobId'],
  additionalProperties: false,
  properties: { tenantId: tenantIdParam, jobId: resourceIdParam },
} as const;

export const VocJobStatus = {
  $id: 'VocJobStatus',
  type: 'object',
  required: ['id', 'status', 'started', 'file', 'recordingId'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'The job execution identifier.' },
    status: { type: 'string', enum: [...JOB_STATUSES] },
    started: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'When the job started, epoch milliseconds.',
    },
    file: { type: 'string', description: 'Storage path of the uploaded recording.' },
    recordingId: {
      type: 'string',
      description: 'ID of the VOC conversation row the job writes (its `ID` in the VOC list).',
    },
    failureReason: {
      type: 'string',
      description: 'Present only when `status` is `failed`: why, and what to do about it.',
    },
    analysis: {
      type: 'string',
      enum: [...ANALYSIS_KINDS],
      description:
        "Present once the recording went to an analysis: `call-analytics` (a two-channel call: the row gets sentiment, issues, categories, talk times and, where the stage offers it, a summary) or `transcription` (a mono call: the row gets its length and each voice's talk time only). The API guide lists the fields of each.",
    },
  },
} as const;

/**
 * A recording file name as the client knows it: kept on the job for the operator, never part of
 * the storage path (which is ours), so only separators and control characters are refused.
 */
const FILE_NAME = '^[^/\\\\\\u0000-\\u001f\\u007f]+$';

export const CreateRecordingUploadBody = {
  $id: 'CreateRecordingUploadBody',
  type: 'object',
  required: ['fileName', 'contentType', 'sizeBytes'],
  additionalProperties: false,
  properties: {
    fileName: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: FILE_NAME,
      description: "The recording's file name, 1 to 255 characters, no `/`, `\\` or control characters.",
    },
    contentType: {
      type: 'string',
      enum: [...RECORDING_CONTENT_TYPES],
      description: 'The audio type of the file; the upload must send exactly this Content-Type.',
    },
    sizeBytes: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        "The file's exact size in bytes; the upload must send exactly this many. At most the stage's limit (500 MB by default).",
    },
  },
} as const;

export const RecordingUpload = {
  $id: 'RecordingUpload',
  type: 'object',
  required: ['jobId', 'upload'],
  additionalProperties: false,
  properties: {
    jobId: {
      type: 'string',
      pattern: '^[0-9A-HJKMNP-TV-Z]{26}$',
      maxLength: 26,
      description: 'The job to poll at `GET .../recording/{jobId}/status`; it is `started` from now on.',
    },
    upload: {
      type: 'object',
      required: ['method', 'url', 'headers', 'expiresAt'],
      additionalProperties: false,
      description: 'How to send the file: straight to storage, not through this API.',
      properties: {
        method: { type: 'string', enum: ['PUT'] },
        url: {
          type: 'string',
          format: 'uri',
          maxLength: 8192,
          description: 'A presigned URL for this one file; anyone holding it can upload until it expires.',
        },
        headers: {
          type: 'object',
          required: ['Content-Type', 'Content-Length', 'If-None-Match'],
          additionalProperties: false,
          description:
            'Send exactly these headers: storage refuses an upload of another type or size, or without `If-None-Match: *` (403), and a second upload to the same URL (412: the URL writes its file once).',
          properties: {
            'Content-Type': { type: 'string', enum: [...RECORDING_CONTENT_TYPES] },
            'Content-Length': { type: 'string', pattern: '^[0-9]+$', maxLength: 16 },
            'If-None-Match': { type: 'string', enum: ['*'] },
          },
        },
        expiresAt: {
          type: 'string',
          format: 'date-time',
          maxLength: 32,
          description: 'After this instant storage refuses the URL.',
        },
      },
    },
  },
} as const;
