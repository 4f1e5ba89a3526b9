/**
 * Which analysis a recording gets, decided by what the file is before any money is spent. Amazon
 * Transcribe Call Analytics (post-call) takes two-channel audio only, agent on one channel and
 * customer on the other (its developer guide; the maintainers of aws-samples'
 * amazon-transcribe-post-call-analytics say the same and fall back to standard Transcribe for mono).
 * So a two-channel call goes to Call Analytics, a mono call to a standard transcription job that
 * tells the speakers apart by voice, and anything else is refused with a reason the caller can act on.
 * Both kinds share Transcribe's batch limits (sample rate, length, size).
 */
import type { AudioProbe } from './audio-probe.ts';

export const ANALYSIS_KINDS = ['call-analytics', 'transcription'] as const;
/** `call-analytics`: two channels, full insights; `transcription`: mono, speaker labels only. */
export type AnalysisKind = (typeof ANALYSIS_KINDS)[number];

/**
 * Amazon Transcribe's limits for batch jobs, Call Analytics included (Developer Guide, "Data input
 * and output"): sample rates of 8 to 48 kHz, at most 4 hours and 2 GB a file.
 */
export const TRANSCRIBE_MEDIA_LIMITS = {
  minSampleRate: 8000,
  maxSampleRate: 48_000,
  maxSeconds: 4 * 3600,
  maxBytes: 2_000_000_000,
} as const;

export type AnalysisChoice = { kind: AnalysisKind } | { refused: string };

/**
 * The analysis for a probed recording, or why none can take it: `maxSeconds` is the stage's
 * longest recording (never past Transcribe's 4 hours).
 *
 * @example chooseAnalysis({ container: 'WAVE', channels: 2, sampleRate: 8000 }, 64_000) // { kind: 'call-analytics' }
 */
export function chooseAnalysis(
  probe: AudioProbe,
  sizeBytes: number,
  maxSeconds: number = TRANSCRIBE_MEDIA_LIMITS.maxSeconds,
): AnalysisChoice {
  const limits = TRANSCRIBE_MEDIA_LIMITS;
  if (probe.channels > 2) {
    return {
      refused: `The recording has ${probe.channels} channels; the analysis takes mono audio (speakers told apart by voice) or two channels (agent on the first, customer on the second). Mix it down and upload it again.`,
    };
  }
  if (probe.sampleRate < limits.minSampleRate || probe.sampleRate > limits.maxSampleRate) {
    return {
      refused: `The recording is sampled at ${probe.sampleRate} Hz; the analysis takes 8000 to 48000 Hz. Resample it and upload it again.`,
    };
  }
  const longest = Math.min(maxSeconds, limits.maxSeconds);
  if (probe.durationSeconds !== undefined && probe.durationSeconds > longest) {
    return {
      refused: `The recording lasts ${spoken(probe.durationSeconds)}; this API analyses recordings of at most ${spoken(longest)}. Split it and upload the parts.`,
    };
  }
  if (sizeBytes > limits.maxBytes) {
    return {
      refused: `The recording has ${sizeBytes} bytes; the analysis takes at most 2 GB a file. Compress or split it and upload it again.`,
    };
  }
  return { kind: probe.channels === 2 ? 'call-analytics' : 'transcription' };
}

/** A length as a sentence says it: seconds up to a minute and a half, else minutes. */
function spoken(seconds: number): string {
  return seconds < 90 ? `${Math.round(seconds)} seconds` : `${Math.round(seconds / 60)} minutes`;
}
