/**
 * The analysis on a stage: Amazon Transcribe Call Analytics, post-call. `start` submits the job
 * (named after ours, so a retried event finds it submitted instead of starting a second one);
 * Transcribe then emits "Call Analytics Job State Change", and `collect` turns the finished job's
 * output into the row's fields. Stereo recordings are read as agent on channel 0, customer on 1.
 */

import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { BadRequestException, ConflictException, GetCallAnalyticsJobCommand, StartCallAnalyticsJobCommand, type TranscribeClient } from '@aws-sdk/client-transcribe';
import { type CallAnalyticsOutput, callAnalyticsFields } from '#shared/domain/voc/call-analytics-row';
import type { AnalysisOutcome, RecordingAnalysis } from './recording-analysis.ts';

/** Output of a job lands beside the recordings, under its own prefix. */
export const ANALYSIS_PREFIX = 'analysis/';

/**
 * `cxm.<stage>.<jobId>.<tenantId>`: Transcribe job names allow `[0-9a-zA-Z._-]`, which holds every
 * tenant id; the stage and job id hold no dot, so the name splits back unambiguously.
 */
export function analysisJobName(stage: string, tenantId: string, jobId: string): string {
  return `cxm.${stage}.${jobId}.${tenantId}`;
}

export function parseAnalysisJobName(name: string, stage: string): { tenantId: string; jobId: string } | undefined {
  const match = /^cxm\.([a-z0-9-]+)\.([0-9A-Z]{26})\.([A-Za-z0-9][A-Za-z0-9._-]*)$/.exec(name);
  if (!match || match[1] !== stage) return undefined;
  return { jobId: match[2]!, tenantId: match[3]! };
}

export interface CallAnalyticsSettings {
  stage: string;
  /** The role Transcribe assumes to read the recording and write its output. */
  dataAccessRoleArn: string;
  /** Ask for a generative call summary (offered in few regions; the stack refuses the others). */
  callSummaries: boolean;
}

export function createCallAnalyticsAnalysis(transcribe: TranscribeClient, s3: S3Client, settings: CallAnalyticsSettings) {
  const analysis: RecordingAnalysis & { collect(tenantId: string, jobId: string): Promise<AnalysisOutcome> } = {
    async start({ tenantId, jobId, bucket, key, probe }) {
      try {
        await transcribe.send(
          new StartCallAnalyticsJobCommand({
            CallAnalyticsJobName: analysisJobName(settings.stage, tenantId, jobId),
            Media: { MediaFileUri: `s3://${bucket}/${key}` },
            OutputLocation: `s3://${bucket}/${ANALYSIS_PREFIX}${tenantId}/${jobId}/`,
            DataAccessRoleArn: settings.dataAccessRoleArn,
            ...(probe.channels === 2 && {
              ChannelDefinitions: [
                { ChannelId: 0, ParticipantRole: 'AGENT' },
                { ChannelId: 1, ParticipantRole: 'CUSTOMER' },
              ],
            }),
            ...(settings.callSummaries && { Settings: { Summarization: { GenerateAbstractiveSummary: true } } }),
          }),
        );
      } catch (error) {
        // Submitted by an earlier delivery of the same event: its state change will come.
        if (error instanceof ConflictException) return { kind: 'pending' };
        // Refused for what the recording is (too short, no speech channel...): no retry changes that.
        if (error instanceof BadRequestException) return { kind: 'failed', reason: `The analysis refused the recording: ${error.message}` };
        throw error;
      }
      return { kind: 'pending' };
    },

    async collect(tenantId, jobId) {
      const { CallAnalyticsJob: job } = await transcribe.send(new GetCallAnalyticsJobCommand({ CallAnalyticsJobName: analysisJobName(settings.stage, tenantId, jobId) }));
      if (job?.CallAnalyticsJobStatus === 'FAILED') return { kind: 'failed', reason: `The analysis failed: ${job.FailureReason ?? 'Amazon Transcribe gave no reason'}.` };
      if (job?.CallAnalyticsJobStatus !== 'COMPLETED') return { kind: 'pending' };
      const uri = job.Transcript?.TranscriptFileUri;
      const location = uri ? s3Location(uri) : undefined;
      if (!location) throw new Error(`Call Analytics job of ${jobId} completed without a readable output location (${uri})`);
      const output = await s3.send(new GetObjectCommand(location));
      const text = await output.Body!.transformToString('utf8');
      return { kind: 'done', fields: callAnalyticsFields(JSON.parse(text) as CallAnalyticsOutput) };
    },
  };
  return analysis;
}

/** `s3://bucket/key`, or the https forms Transcribe reports (`https://s3.<region>.amazonaws.com/bucket/key`). */
export function s3Location(uri: string): { Bucket: string; Key: string } | undefined {
  const s3 = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (s3) return { Bucket: s3[1]!, Key: s3[2]! };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  const path = url.pathname.split('/').slice(1).map(decodeURIComponent);
  const virtualHosted = /^(.+)\.s3[.-]/.exec(url.hostname);
  if (virtualHosted) return { Bucket: virtualHosted[1]!, Key: path.join('/') };
  const [bucket, ...key] = path;
  return bucket && key.length > 0 ? { Bucket: bucket, Key: key.join('/') } : undefined;
}
