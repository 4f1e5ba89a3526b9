/**
 * The stage's recording settings as the functions read them from their environment (CDK sets them
 * from the stage config; locally npm start passes them through), checked at cold start so a bad
 * value fails loudly there. One module of names for CDK, the local runtime and the functions.
 */

import type { JobDeadlines } from '#shared/domain/voc/job-status';
import { DEFAULT_RECORDING_LIMITS } from '#shared/domain/voc/recording-upload';
import { FUNCTION_ENV } from './setting-names.ts';
import { wholeNumberSetting } from './whole-number-setting.ts';

export const RECORDING_SETTING_ENVS = [
  FUNCTION_ENV.recordingMaxBytes,
  FUNCTION_ENV.recordingUploadUrlTtlSeconds,
  FUNCTION_ENV.recordingUploadGraceSeconds,
  FUNCTION_ENV.recordingProcessingWindowSeconds,
  FUNCTION_ENV.recordingMaxInFlightPerTenant,
  FUNCTION_ENV.recordingMaxSeconds,
] as const;

/**
 * A tenant's recordings in flight (upload jobs still `started`) at most: past it a new upload is
 * 429, so no tenant's burst fills the analysis queue every tenant shares.
 */
export const DEFAULT_MAX_IN_FLIGHT_PER_TENANT = 20;

/** The longest recording accepted, in seconds (Transcribe takes up to 4 hours). */
export const DEFAULT_MAX_RECORDING_SECONDS = 2 * 3600;

/**
 * Processing may take this long after the file arrived before a `started` job counts as failed:
 * Transcribe's own run plus Lambda's two retries of an asynchronous event (up to 6 hours of
 * event age are allowed; the processor keeps it at 1 hour).
 */
export const DEFAULT_PROCESSING_WINDOW_SECONDS = 2 * 3600;

/**
 * What the recording processor asks of Transcribe: the role it assumes to read a recording and write
 * its output, and whether Call Analytics adds a generative summary (`recordings.callSummaries`).
 *
 * @example createTranscribeAnalysis(client, s3, { stage: stageName(), ...transcribeSettings() })
 */
export function transcribeSettings(env: NodeJS.ProcessEnv = process.env): {
  dataAccessRoleArn: string;
  callSummaries: boolean;
} {
  return {
    dataAccessRoleArn: env[FUNCTION_ENV.transcribeRoleArn] ?? '',
    callSummaries: env[FUNCTION_ENV.recordingCallSummaries] === 'true',
  };
}

export function recordingsBucket(): string {
  const bucket = process.env[FUNCTION_ENV.recordingsBucket];
  if (!bucket)
    throw new Error(`environment variable ${FUNCTION_ENV.recordingsBucket} (the recordings bucket) is not set`);
  return bucket;
}

/** The largest recording S3 may accept (a single PUT takes at most 5 GB). */
export const maxRecordingBytes = () =>
  wholeNumberSetting(FUNCTION_ENV.recordingMaxBytes, DEFAULT_RECORDING_LIMITS.maxBytes, 1, 5_000_000_000);
/** How long an upload URL stays valid: at most 12 hours, what a role's session may last. */
export const uploadUrlTtlSeconds = () =>
  wholeNumberSetting(
    FUNCTION_ENV.recordingUploadUrlTtlSeconds,
    DEFAULT_RECORDING_LIMITS.uploadUrlTtlSeconds,
    1,
    43_200,
  );

export function jobDeadlines(): JobDeadlines {
  return {
    uploadGraceMs:
      wholeNumberSetting(
        FUNCTION_ENV.recordingUploadGraceSeconds,
        DEFAULT_RECORDING_LIMITS.uploadGraceSeconds,
        0,
        86_400,
      ) * 1000,
    processingWindowMs:
      wholeNumberSetting(FUNCTION_ENV.recordingProcessingWindowSeconds, DEFAULT_PROCESSING_WINDOW_SECONDS, 1, 86_400) *
      1000,
  };
}

/** How many recordings of one tenant may be in flight at once. */
export const maxInFlightPerTenant = () =>
  wholeNumberSetting(FUNCTION_ENV.recordingMaxInFlightPerTenant, DEFAULT_MAX_IN_FLIGHT_PER_TENANT, 1, 10_000);
/** The longest recording accepted, in seconds: at most Transcribe's 4 hours. */
export const maxRecordingSeconds = () =>
  wholeNumberSetting(FUNCTION_ENV.recordingMaxSeconds, DEFAULT_MAX_RECORDING_SECONDS, 1, 4 * 3600);
