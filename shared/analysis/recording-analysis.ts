/**
 * The analysis of an uploaded recording (a port; its adapter is Amazon Transcribe, which the local
 * runtime stands in for over the same API): submitted once the processor has probed the file, it
 * reports back later with its own event, and is collected then, or by the processor's sweep when
 * that event was lost.
 */
import type { AnalysisKind } from '#shared/domain/voc/analysis-kind';
import type { AudioProbe } from '#shared/domain/voc/audio-probe';
import type { RecordingAnalysisFields } from '#shared/domain/voc/recording-row';

export interface AnalysisRequest {
  tenantId: string;
  jobId: string;
  kind: AnalysisKind;
  bucket: string;
  key: string;
  probe: AudioProbe;
}

/** `done`: the row's fields now; `pending`: still running, it reports back; `failed`: why not. */
export type AnalysisOutcome =
  | { kind: 'done'; fields: RecordingAnalysisFields }
  | { kind: 'pending' }
  | { kind: 'failed'; reason: string };

export interface RecordingAnalysis {
  /** Submits the recording (a second submission of the same job is no new analysis). */
  start(request: AnalysisRequest): Promise<AnalysisOutcome>;
  /** Where the submitted analysis of a job stands; `audioSeconds` is the file's length as probed. */
  collect(tenantId: string, jobId: string, kind: AnalysisKind, audioSeconds?: number): Promise<AnalysisOutcome>;
}
