/**
 * The recording processor (EventBridge): the use case in shared/analysis/run-recording-job.ts,
 * wired to this stage's stores, bucket and analysis (Amazon Transcribe Call Analytics when the
 * stage asks for it, else the local stand-in).
 */
import { TranscribeClient } from '@aws-sdk/client-transcribe';
import type { EventBridgeEvent } from 'aws-lambda';
import { createCallAnalyticsAnalysis } from '#shared/analysis/call-analytics-analysis';
import { createLocalAudioAnalysis } from '#shared/analysis/local-audio-analysis';
import { type AnalysisStateDetail, createRecordingJobRunner, type ObjectCreatedDetail } from '#shared/analysis/run-recording-job';
import { FUNCTION_ENV } from '#shared/function-env';
import { logger } from '#shared/http/logger';
import { reportingRowsStore, vocJobsStore } from '#shared/store/function-stores';
import { recordingsBucket } from '#shared/store/recording-settings';
import { createRecordingsBucket, s3Client } from '#shared/store/recordings-bucket';

const bucketName = recordingsBucket();
const stage = process.env[FUNCTION_ENV.stage] ?? 'local';
const callAnalytics =
  process.env[FUNCTION_ENV.recordingAnalysis] === 'call-analytics'
    ? createCallAnalyticsAnalysis(new TranscribeClient({}), s3Client(), {
        stage,
        dataAccessRoleArn: process.env[FUNCTION_ENV.transcribeRoleArn] ?? '',
        callSummaries: process.env[FUNCTION_ENV.recordingCallSummaries] === 'true',
      })
    : undefined;
const runner = createRecordingJobRunner({
  stage,
  bucketName,
  bucket: createRecordingsBucket(s3Client(), bucketName),
  jobs: vocJobsStore(),
  rows: reportingRowsStore(),
  analysis: callAnalytics ?? createLocalAudioAnalysis(),
  ...(callAnalytics && { callAnalytics }),
  logger,
});

export const handler = async (event: EventBridgeEvent<string, ObjectCreatedDetail | AnalysisStateDetail>): Promise<void> => {
  if (event.source === 'aws.s3') await runner.onRecordingArrived(event.id, event.detail as ObjectCreatedDetail);
  else if (event.source === 'aws.transcribe') await runner.onAnalysisStateChanged(event.id, event.detail as AnalysisStateDetail);
  else logger.warn('event of an unexpected source ignored', { source: event.source, detailType: event['detail-type'] });
};
