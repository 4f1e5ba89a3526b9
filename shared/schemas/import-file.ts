/** The `cxm import` file (infra/README.md, the operator CLI); every member is optional. */

import type { VocJob } from '#shared/domain/voc/job-status';
import { JOB_STATUSES } from '#shared/domain/voc/job-status';
import { COLLECTION_NAME, resourceIdParam } from './identifiers.ts';

const nullableString = { type: ['string', 'null'] } as const;

export const ImportFile = {
  $id: 'ImportFile',
  type: 'object',
  additionalProperties: false,
  properties: {
    conversations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id'],
        additionalProperties: false,
        properties: {
          id: resourceIdParam,
          type: { type: 'string', minLength: 1 },
          status: { type: 'string', minLength: 1 },
          mergedInto: nullableString,
          lockedUntil: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 0 }, { type: 'string', minLength: 1 }] },
          realtimeOwner: nullableString,
          assignee: {
            anyOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['id'],
                additionalProperties: false,
                properties: { id: { type: 'string', minLength: 1 }, active: { type: 'boolean' } },
              },
            ],
          },
        },
      },
    },
    documents: {
      type: 'object',
      propertyNames: { pattern: COLLECTION_NAME },
      additionalProperties: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'data'],
          additionalProperties: false,
          properties: { id: resourceIdParam, data: { type: 'object' } },
        },
      },
    },
    // Rows are checked field by field when shaped (shared/domain/reporting/report-rows.ts).
    assistantConversations: { type: 'array', items: { type: 'object' } },
    vocConversations: { type: 'array', items: { type: 'object' } },
    vocJobs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'status', 'started', 'file', 'recordingId'],
        additionalProperties: false,
        properties: {
          id: resourceIdParam,
          status: { type: 'string', enum: [...JOB_STATUSES] },
          started: { type: 'integer', minimum: 0 },
          file: { type: 'string', minLength: 1 },
          recordingId: { type: 'string', minLength: 1 },
        },
      },
    },
  },
} as const;

export interface ImportConversation {
  id: string;
  type?: string;
  status?: string;
  mergedInto?: string | null;
  lockedUntil?: number | string | null;
  realtimeOwner?: string | null;
  assignee?: { id: string; active?: boolean } | null;
}

export interface ImportFileContent {
  conversations?: ImportConversation[];
  documents?: Record<string, Array<{ id: string; data: Record<string, unknown> }>>;
  assistantConversations?: Array<Record<string, unknown>>;
  vocConversations?: Array<Record<string, unknown>>;
  vocJobs?: VocJob[];
}
