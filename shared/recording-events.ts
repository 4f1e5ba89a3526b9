/**
 * The event-driven function of VOC recordings, declared once like the routes: CDK builds its rules,
 * grants and environment from it, and the local runtime serves it and delivers it the same events.
 */

import type { TableAccess } from '#shared/api/route-spec';
import { analysisJobNamePrefix } from '#shared/domain/voc/analysis-job-names';
import type { AnalysisKind } from '#shared/domain/voc/analysis-kind';
import { RECORDINGS_PREFIX } from '#shared/domain/voc/recording-upload';
import type { TableId } from '#shared/store/table-specs';

export const RECORDING_PROCESSOR = {
  id: 'processRecording',
  handler: 'functions/voc/process-recording.ts',
  tables: {
    // Jobs: read and moved along (with their tenant's count of recordings in flight), and the
    // sweep's index of open jobs.
    vocJobs: { operations: ['GetItem', 'UpdateItem'], indexQueries: ['byOpenJob'] },
    // The key that created an upload, by its id: its file is refused if the key was revoked first.
    keys: { indexQueries: ['byKeyId'] },
    // A row is put with its count buckets; taken back (or found absent) when its job was failed meanwhile.
    reporting: { operations: ['PutItem', 'DeleteItem', 'ConditionCheckItem'] },
    reportingCounts: { operations: ['UpdateItem'] },
  } satisfies Partial<Record<TableId, TableAccess>>,
} as const;

/** An EventBridge event pattern as EventBridge writes it (CDK's own type renames its keys). */
export type RecordingEventPattern = {
  source: string[];
  'detail-type': string[];
  detail: Record<string, unknown>;
};

/** EventBridge's "Object Created" of a recording in the stage's bucket (the bucket sends all its events to EventBridge). */
export function recordingArrivedPattern(bucketName: string): RecordingEventPattern {
  return {
    source: ['aws.s3'],
    'detail-type': ['Object Created'],
    detail: { bucket: { name: [bucketName] }, object: { key: [{ prefix: RECORDINGS_PREFIX }] } },
  };
}

/** The detail type of Transcribe's word that a job of each kind ended, and the names of its detail's fields. */
export const ANALYSIS_STATE_EVENTS = {
  'call-analytics': { detailType: 'Call Analytics Job State Change', nameField: 'JobName', statusField: 'JobStatus' },
  transcription: {
    detailType: 'Transcribe Job State Change',
    nameField: 'TranscriptionJobName',
    statusField: 'TranscriptionJobStatus',
  },
} as const satisfies Record<AnalysisKind, { detailType: string; nameField: string; statusField: string }>;

/** Transcribe's word that an analysis of `kind` of this stage ended, either way (job names: analysis-job-names.ts). */
export function analysisFinishedPattern(stage: string, kind: AnalysisKind): RecordingEventPattern {
  const event = ANALYSIS_STATE_EVENTS[kind];
  return {
    source: ['aws.transcribe'],
    'detail-type': [event.detailType],
    detail: {
      [event.statusField]: ['COMPLETED', 'FAILED'],
      [event.nameField]: [{ prefix: analysisJobNamePrefix(stage) }],
    },
  };
}

/**
 * How often the processor asks Transcribe about every analysis still under way, for the ones whose
 * state change EventBridge lost ("best effort"): a lost event delays a job by at most this much.
 */
export const ANALYSIS_SWEEP_MINUTES = 5;

/** The rule that runs the sweep (EventBridge's "Scheduled Event" names it in `resources`). */
export function analysisSweepRuleName(stage: string): string {
  return `cxm-${stage}-recording-analysis-sweep`;
}

/** `cxm-<stage>-recordings-<account>-<region>`: bucket names are global, so the account and region make it unique. */
export function recordingsBucketName(stage: string, account: string, region: string): string {
  return `cxm-${stage}-recordings-${account}-${region}`;
}
