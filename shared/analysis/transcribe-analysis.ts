/**
 * The analysis on Amazon Transcribe, one kind per recording (shared/domain/voc/analysis-kind.ts):
 * a two-channel call goes to Call Analytics (post-call; agent on channel 0, customer on channel 1;
 * a generative summary where the stage asks for it), a mono call to a standard transcription job
 * with speaker labels. Both are named after our job, so a retried event finds its job submitted
 * instead of starting a second one; both write their output under `analysis/<tenant>/<jobId>/` of
 * the recordings bucket through the data-access role, the only place the processor's IAM lets them
 * name; both queue when the account is at its limit. Transcribe then emits "Call Analytics Job
 * State Change" or "Transcribe Job State Change", and `collect` turns the finished job's output
 * into the row's fields.
 */

import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  BadRequestException,
  ConflictException,
  GetCallAnalyticsJobCommand,
  GetTranscriptionJobCommand,
  NotFoundException,
  StartCallAnalyticsJobCommand,
  StartTranscriptionJobCommand,
  type TranscribeClient,
} from '@aws-sdk/client-transcribe';
import { analysisJobName, analysisOutputKey } from '#shared/domain/voc/analysis-job-names';
import type { AnalysisKind } from '#shared/domain/voc/analysis-kind';
import { type CallAnalyticsOutput, callAnalyticsFields } from '#shared/domain/voc/call-analytics-row';
import { type TranscriptionOutput, transcriptionFields } from '#shared/domain/voc/transcription-row';
import type { AnalysisOutcome, RecordingAnalysis } from './recording-analysis.ts';

/** A mono call's voices: an agent and a customer, most of the time. */
const MAX_SPEAKERS = 2;

export interface TranscribeSettings {
  stage: string;
  /** The role Transcribe assumes to read the recording and write its output. */
  dataAccessRoleArn: string;
  /** Ask Call Analytics for a generative call summary (offered in few regions; the stack refuses the others). */
  callSummaries: boolean;
}

/**
 * The Transcribe adapter of the analysis port.
 *
 * @example createTranscribeAnalysis(new TranscribeClient({}), s3Client(), { stage: 'dev', dataAccessRoleArn, callSummaries: true })
 */
export function createTranscribeAnalysis(
  transcribe: TranscribeClient,
  s3: S3Client,
  settings: TranscribeSettings,
): RecordingAnalysis {
  const submit = (kind: AnalysisKind, tenantId: string, jobId: string, bucket: string, key: string) => {
    const name = analysisJobName(settings.stage, tenantId, jobId);
    const media = { MediaFileUri: `s3://${bucket}/${key}` };
    if (kind === 'call-analytics') {
      return transcribe.send(
        new StartCallAnalyticsJobCommand({
          CallAnalyticsJobName: name,
          Media: media,
          OutputLocation: `s3://${bucket}/${analysisOutputKey(tenantId, jobId)}`,
          DataAccessRoleArn: settings.dataAccessRoleArn,
          ChannelDefinitions: [
            { ChannelId: 0, ParticipantRole: 'AGENT' },
            { ChannelId: 1, ParticipantRole: 'CUSTOMER' },
          ],
          ...(settings.callSummaries && { Settings: { Summarization: { GenerateAbstractiveSummary: true } } }),
        }),
      );
    }
    return transcribe.send(
      new StartTranscriptionJobCommand({
        TranscriptionJobName: name,
        Media: media,
        // As Call Analytics does: the language is identified from the audio.
        IdentifyLanguage: true,
        OutputBucketName: bucket,
        OutputKey: analysisOutputKey(tenantId, jobId),
        Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: MAX_SPEAKERS },
        // Queued rather than refused when the account runs its most jobs at once, reading and
        // writing through the same role as Call Analytics.
        JobExecutionSettings: { AllowDeferredExecution: true, DataAccessRoleArn: settings.dataAccessRoleArn },
      }),
    );
  };

  async function readOutput<T>(uri: string | undefined, jobId: string): Promise<T> {
    const location = uri ? s3Location(uri) : undefined;
    if (!location) throw new Error(`the analysis of ${jobId} completed without a readable output location (${uri})`);
    const output = await s3.send(new GetObjectCommand(location));
    if (!output.Body) throw new Error(`the analysis output of ${jobId} has no body`);
    return JSON.parse(await output.Body.transformToString('utf8')) as T;
  }

  return {
    async start({ tenantId, jobId, kind, bucket, key }) {
      try {
        await submit(kind, tenantId, jobId, bucket, key);
      } catch (error) {
        // Submitted by an earlier delivery of the same event: its state change will come.
        if (error instanceof ConflictException) return { kind: 'pending' };
        // Refused for what the recording is (too short, no speech...): no retry changes that.
        if (error instanceof BadRequestException)
          return { kind: 'failed', reason: `The analysis refused the recording: ${error.message}` };
        throw error;
      }
      return { kind: 'pending' };
    },

    async collect(tenantId, jobId, kind, audioSeconds) {
      const name = analysisJobName(settings.stage, tenantId, jobId);
      try {
        if (kind === 'call-analytics') {
          const { CallAnalyticsJob: job } = await transcribe.send(
            new GetCallAnalyticsJobCommand({ CallAnalyticsJobName: name }),
          );
          if (job?.CallAnalyticsJobStatus === 'FAILED') return failed(job.FailureReason);
          if (job?.CallAnalyticsJobStatus !== 'COMPLETED') return { kind: 'pending' };
          return {
            kind: 'done',
            fields: callAnalyticsFields(
              await readOutput<CallAnalyticsOutput>(job.Transcript?.TranscriptFileUri, jobId),
            ),
          };
        }
        const { TranscriptionJob: job } = await transcribe.send(
          new GetTranscriptionJobCommand({ TranscriptionJobName: name }),
        );
        if (job?.TranscriptionJobStatus === 'FAILED') return failed(job.FailureReason);
        if (job?.TranscriptionJobStatus !== 'COMPLETED') return { kind: 'pending' };
        return {
          kind: 'done',
          fields: transcriptionFields(
            await readOutput<TranscriptionOutput>(job.Transcript?.TranscriptFileUri, jobId),
            audioSeconds,
          ),
        };
      } catch (error) {
        // A job Transcribe does not know (deleted by hand, or submitted to another Transcribe: a
        // local stand-in that restarted) cannot report back: it is failed with the rest at its
        // window, never at once, so nothing that may still be found is given up early.
        if (error instanceof NotFoundException) return { kind: 'pending' };
        throw error;
      }
    },
  };
}

function failed(reason: string | undefined): AnalysisOutcome {
  return {
    kind: 'failed',
    reason: `The analysis failed: ${reason?.replace(/\.$/, '') ?? 'Amazon Transcribe gave no reason'}.`,
  };
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
