/**
 * A VOC recording job: the five contract fields always present, `started` in epoch
 * milliseconds, `failureReason` once a job has failed (an addition the contract leaves room
 * for: it says why, in a sentence a caller can act on), and `analysis` once the recording went to
 * one (which one says which row fields it can fill). The only transitions are
 * started -> completed and started -> failed.
 */
import type { AnalysisKind } from './analysis-kind.ts';

export const JOB_STATUSES = ['started', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type FinalJobStatus = Exclude<JobStatus, 'started'>;

export interface VocJob {
  id: string;
  status: JobStatus;
  started: number;
  file: string;
  recordingId: string;
  failureReason?: string;
  analysis?: AnalysisKind;
}

/**
 * What the upload path keeps beside the contract fields, absent on jobs imported by an operator:
 * the declared upload, when its URL expires, and the processing attempts so far.
 */
export interface VocJobUpload {
  contentType: string;
  sizeBytes: number;
  fileName: string;
  /** Epoch ms after which S3 refuses the upload URL. */
  uploadExpiresAt: number;
  /** Epoch ms the processor first saw the object, once it has. */
  uploadedAt?: number;
  /** Attempts at the event being processed (`attemptEvent`): Lambda retries the same event id. */
  attempts?: number;
  attemptEvent?: string;
  /** The file's length as the processor read it, in seconds (when its headers say). */
  audioSeconds?: number;
  /** Epoch ms the analysis was submitted: from then on, its end is the analysis's to report. */
  analysisSubmittedAt?: number;
  /** The API key that created the upload: its file is refused if that key is revoked or expired by then. */
  keyId?: string;
  /** Counted among its tenant's recordings in flight until it finishes. */
  countsInFlight?: boolean;
}

export type StoredVocJob = VocJob & { upload?: VocJobUpload };

/** How long a job may stay `started`: the upload's grace after its URL expires, the processing window after it arrived. */
export interface JobDeadlines {
  uploadGraceMs: number;
  processingWindowMs: number;
}

/**
 * What an overdue verdict was based on: the job is failed only if this still holds, so a file that
 * arrives while the verdict is being written is never failed as "not uploaded".
 */
export type OverdueBasis = { uploadedAt: number | undefined };

/**
 * Why a job still `started` at `nowMs` can no longer complete, or undefined while it still can: its
 * file never arrived before the URL expired (plus the grace), or processing, retries included, did
 * not finish in its window (a processor that crashed on its last attempt). A job whose analysis was
 * submitted is never overdue here: Transcribe may have finished although its event was lost, so
 * only the processor, having asked Transcribe, fails it (`analysisOverdueReason`).
 */
export function overdueReason(job: StoredVocJob, nowMs: number, deadlines: JobDeadlines): string | undefined {
  const upload = job.upload;
  if (job.status !== 'started' || !upload || upload.analysisSubmittedAt !== undefined) return undefined;
  if (upload.uploadedAt === undefined) {
    if (nowMs <= upload.uploadExpiresAt + deadlines.uploadGraceMs) return undefined;
    return `The recording was not uploaded before its upload URL expired (${new Date(upload.uploadExpiresAt).toISOString()}). Create a new upload to try again.`;
  }
  if (nowMs <= upload.uploadedAt + deadlines.processingWindowMs) return undefined;
  return `Processing did not finish within ${Math.round(deadlines.processingWindowMs / 60_000)} minutes of the upload, retries included. Create a new upload to try again.`;
}

/**
 * Why a job whose analysis is still running at `nowMs` is given up on, or undefined while it may
 * still finish: its processing window, counted from the file's arrival as for any job.
 *
 * @example analysisOverdueReason(job, Date.now(), { uploadGraceMs: 0, processingWindowMs: 7_200_000 })
 */
export function analysisOverdueReason(job: StoredVocJob, nowMs: number, deadlines: JobDeadlines): string | undefined {
  const arrived = job.upload?.uploadedAt;
  if (job.status !== 'started' || arrived === undefined || nowMs <= arrived + deadlines.processingWindowMs)
    return undefined;
  return `The analysis did not finish within ${Math.round(deadlines.processingWindowMs / 60_000)} minutes of the upload. Create a new upload to try again.`;
}
