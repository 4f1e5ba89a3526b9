/**
 * The analysis of an uploaded recording (a port with two adapters): Amazon Transcribe Call
 * Analytics on a stage, whose result arrives later as its own event; locally a stand-in that reads
 * the audio itself and answers at once.
 */
import type { AudioProbe } from '#shared/domain/voc/audio-probe';
import type { RecordingAnalysisFields } from '#shared/domain/voc/recording-row';

export interface AnalysisRequest {
  tenantId: string;
  jobId: string;
  bucket: string;
  key: string;
  probe: AudioProbe;
}

/** `done`: the row's fields now; `pending`: the analysis runs elsewhere and reports back; `failed`: why not. */
export type AnalysisOutcome = { kind: 'done'; fields: RecordingAnalysisFields } | { kind: 'pending' } | { kind: 'failed'; reason: string };

export interface RecordingAnalysis {
  start(request: AnalysisRequest): Promise<AnalysisOutcome>;
}
