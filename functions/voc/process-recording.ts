/**
 * The recording processor (EventBridge): the use case in shared/analysis/run-recording-job.ts,
 * wired to this stage's stores, bucket and Amazon Transcribe (under npm start, the local stand-in
 * that speaks Transcribe's API). Three kinds of event: a recording arrived (S3), an analysis ended
 * (Transcribe, either kind of job), and the schedule of the sweep of open jobs.
 */
import { TranscribeClient } from '@aws-sdk/client-transcribe';
import type { EventBridgeEvent } from 'aws-lambda';
import { createRecordingJobRunner, type ObjectCreatedDetail } from '#shared/analysis/run-recording-job';
import { createTranscribeAnalysis } from '#shared/analysis/transcribe-analysis';
import { ANALYSIS_KINDS } from '#shared/domain/voc/analysis-kind';
import { logger } from '#shared/http/logger';
import { ANALYSIS_STATE_EVENTS } from '#shared/recording-events';
import {
  jobDeadlines,
  maxRecordingSeconds,
  recordingsBucket,
  transcribeSettings,
} from '#shared/settings/recording-settings';
import { stageName } from '#shared/settings/stage-settings';
import { keysStore, reportingRowsStore, vocJobsStore } from '#shared/store/function-stores';
import { createRecordingsBucket, s3Client } from '#shared/store/recordings-bucket';
import { SDK_CLIENT_OPTIONS } from '#shared/store/sdk-client-options';

const bucketName = recordingsBucket();
const stage = stageName();
const runner = createRecordingJobRunner({
  stage,
  bucketName,
  bucket: createRecordingsBucket(s3Client(), bucketName),
  jobs: vocJobsStore(),
  rows: reportingRowsStore(),
  analysis: createTranscribeAnalysis(new TranscribeClient({ ...SDK_CLIENT_OPTIONS }), s3Client(), {
    stage,
    ...transcribeSettings(),
  }),
  keys: keysStore(),
  deadlines: jobDeadlines(),
  maxRecordingSeconds: maxRecordingSeconds(),
  logger,
});

export const handler = async (event: EventBridgeEvent<string, Record<string, unknown>>): Promise<void> => {
  if (event.source === 'aws.s3') return runner.onRecordingArrived(event.id, event.detail as ObjectCreatedDetail);
  if (event.source === 'aws.transcribe') {
    const kind = ANALYSIS_KINDS.find(
      (candidate) => ANALYSIS_STATE_EVENTS[candidate].detailType === event['detail-type'],
    );
    if (kind) {
      const name = event.detail[ANALYSIS_STATE_EVENTS[kind].nameField];
      return runner.onAnalysisStateChanged(event.id, kind, typeof name === 'string' ? name : undefined);
    }
  }
  if (event.source === 'aws.events' && event['detail-type'] === 'Scheduled Event') {
    await runner.sweepJobs(Date.now());
    return;
  }
  logger.warn('event of an unexpected source ignored', { source: event.source, detailType: event['detail-type'] });
};
