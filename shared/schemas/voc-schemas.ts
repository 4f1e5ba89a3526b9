import { JOB_STATUSES } from '#shared/domain/voc/job-status';
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
    started: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'When the job started, epoch milliseconds.' },
    file: { type: 'string', description: 'Storage path of the uploaded recording.' },
    recordingId: { type: 'string' },
  },
} as const;
