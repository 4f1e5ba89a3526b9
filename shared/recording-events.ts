/**
 * The event-driven function of VOC recordings, declared once like the routes: CDK builds its rules,
 * grants and environment from it, and the local runtime serves it and delivers it the same events.
 */

import { RECORDINGS_PREFIX } from '#shared/domain/voc/recording-upload';
import type { TableAccess } from '#shared/routes';
import type { TableId } from '#shared/store/table-specs';

export const RECORDING_PROCESSOR = {
  id: 'processRecording',
  handler: 'functions/voc/process-recording.ts',
  tables: { vocJobs: 'RW', reporting: 'RW', reportingCounts: 'RW' } satisfies Partial<Record<TableId, TableAccess>>,
} as const;

/** EventBridge's "Object Created" of a recording in the stage's bucket (the bucket sends all its events to EventBridge). */
export function recordingArrivedPattern(bucketName: string) {
  return {
    source: ['aws.s3'],
    'detail-type': ['Object Created'],
    detail: { bucket: { name: [bucketName] }, object: { key: [{ prefix: RECORDINGS_PREFIX }] } },
  };
}

/** Transcribe's word that a Call Analytics job of this stage ended, either way (job names: call-analytics-analysis.ts). */
export function analysisFinishedPattern(stage: string) {
  return {
    source: ['aws.transcribe'],
    'detail-type': ['Call Analytics Job State Change'],
    detail: { JobStatus: ['COMPLETED', 'FAILED'], JobName: [{ prefix: `cxm.${stage}.` }] },
  };
}

/** `cxm-<stage>-recordings-<account>-<region>`: bucket names are global, so the account and region make it unique. */
export function recordingsBucketName(stage: string, account: string, region: string): string {
  return `cxm-${stage}-recordings-${account}-${region}`;
}
