/**
 * Running a VOC recording job, the use case behind functions/voc/process-recording.ts (which wires
 * the real stores, bucket and analysis): "Object Created" for a recording starts one; Transcribe's
 * job state change finishes one; the sweep on a schedule finishes one whose state change was lost
 * (EventBridge delivers Transcribe's events on a best-effort basis). A job is checked against the
 * object that arrived (the key must be the job's own file, under the job's tenant), the file must be
 * readable audio of the declared type that an analysis takes (two channels: Call Analytics; mono: a
 * transcription; anything else refused before any money is spent), the analysis runs, its row is
 * written to the VOC list, and only then is the job `completed`. Every transition is conditional on
 * `started`: a re-delivered event changes nothing. An unexpected error is thrown so Lambda retries
 * the event; on the last attempt at the same event the job is failed instead, and a crash there is
 * failed when the job is next read (its processing window).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { KeysStore } from '#shared/auth/key-records';
import { keyStatus } from '#shared/auth/key-status';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { parseAnalysisJobName } from '#shared/domain/voc/analysis-job-names';
import { type AnalysisKind, chooseAnalysis } from '#shared/domain/voc/analysis-kind';
import { declaredTypeMismatch } from '#shared/domain/voc/audio-probe';
import {
  analysisOverdueReason,
  type JobDeadlines,
  type OverdueBasis,
  overdueReason,
  type StoredVocJob,
} from '#shared/domain/voc/job-status';
import { type RecordingAnalysisFields, recordingRow } from '#shared/domain/voc/recording-row';
import { isRecordingContentType, parseRecordingKey } from '#shared/domain/voc/recording-upload';
import { ObjectChangedError, type RecordingsBucket } from '#shared/store/recordings-bucket';
import type { ReportingRowsStore } from '#shared/store/reporting-rows-store';
import type { VocJobsStore } from '#shared/store/voc-jobs-store';
import { NotAudioError, probeAudio } from './probe-audio.ts';
import type { AnalysisOutcome, RecordingAnalysis } from './recording-analysis.ts';

/** Deliveries of one event: Lambda's first try and its two retries of an asynchronous invocation. */
export const MAX_PROCESSING_ATTEMPTS = 3;

/** The most jobs one sweep looks at, oldest first (the next sweep takes the rest). */
export const SWEEP_LIMIT = 1000;

export interface ObjectCreatedDetail {
  bucket?: { name?: string };
  object?: { key?: string; size?: number; etag?: string };
}

export interface RecordingJobPorts {
  stage: string;
  bucketName: string;
  bucket: RecordingsBucket;
  jobs: VocJobsStore;
  rows: ReportingRowsStore;
  analysis: RecordingAnalysis;
  /** The key records, to refuse the file of an upload whose key was revoked before it arrived. */
  keys: Pick<KeysStore, 'findByKeyId'>;
  /** The upload's grace and the processing window: past them the sweep fails a job nobody reads. */
  deadlines: JobDeadlines;
  /** The longest recording accepted, in seconds (a stage setting). */
  maxRecordingSeconds: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export function createRecordingJobRunner({
  stage,
  bucketName,
  bucket,
  jobs,
  rows,
  analysis,
  keys,
  deadlines,
  maxRecordingSeconds,
  logger,
}: RecordingJobPorts) {
  async function fail(tenantId: string, job: StoredVocJob, reason: string, basis?: OverdueBasis): Promise<void> {
    const outcome = await jobs.finish(tenantId, job, 'failed', { reason, ...(basis && { basis }) });
    logger.info('job failed', { tenantId, jobId: job.id, reason, outcome });
  }

  /** Why the file of `job`'s upload is refused for its key (revoked or expired before it arrived), or undefined. */
  async function keyRefusal(job: StoredVocJob): Promise<string | undefined> {
    const keyId = job.upload?.keyId;
    if (!keyId) return undefined;
    const key = await keys.findByKeyId(keyId);
    const arrivedAt = job.upload?.uploadedAt ?? Date.now();
    if (!key)
      return `The API key ${keyId} that created this upload no longer exists, so its file is refused. Create a new upload with an active key.`;
    if (keyStatus(key, arrivedAt) === 'active') return undefined;
    const when = key.revokedAt ? `was revoked at ${key.revokedAt}` : `expired at ${key.expiresAt}`;
    return `The API key ${keyId} that created this upload ${when}, before its file arrived, so the file is refused. Create a new upload with an active key.`;
  }

  /**
   * The row first, then the transition: a job is never `completed` without its row. Should the job
   * have been failed meanwhile (its window ran out while this attempt ran), the row goes again: a
   * failed job has no row in the list.
   */
  async function complete(tenantId: string, job: StoredVocJob, fields: RecordingAnalysisFields): Promise<void> {
    await rows.putRows(tenantId, 'voc', [shapeRow('voc', tenantId, recordingRow(job, fields))]);
    const outcome = await jobs.finish(tenantId, job, 'completed');
    if (outcome === 'done')
      return logger.info('job completed', {
        tenantId,
        jobId: job.id,
        recordingId: job.recordingId,
        analysis: job.analysis,
      });
    const now = await jobs.get(tenantId, job.id);
    if (now?.status !== 'completed') await rows.deleteRows(tenantId, 'voc', [job.recordingId]);
    logger.warn('job finished elsewhere while its row was written', { tenantId, jobId: job.id, status: now?.status });
  }

  async function settle(tenantId: string, job: StoredVocJob, outcome: AnalysisOutcome): Promise<void> {
    if (outcome.kind === 'done') await complete(tenantId, job, outcome.fields);
    else if (outcome.kind === 'failed') await fail(tenantId, job, outcome.reason);
  }

  /** An unexpected error: thrown for Lambda to retry the event, except on its last attempt, which fails the job. */
  async function retryOrFail(tenantId: string, job: StoredVocJob, attempt: number, error: unknown): Promise<void> {
    if (attempt < MAX_PROCESSING_ATTEMPTS) throw error;
    logger.error('processing failed on its last attempt', { tenantId, jobId: job.id, attempt, error });
    await fail(
      tenantId,
      job,
      `Processing failed after ${attempt} attempts (${error instanceof Error ? error.name : 'error'}). Create a new upload to try again.`,
    );
  }

  async function onRecordingArrived(eventId: string, detail: ObjectCreatedDetail): Promise<void> {
    const key = detail.object?.key ?? '';
    const owner = detail.bucket?.name === bucketName ? parseRecordingKey(key) : undefined;
    if (!owner) return logger.warn('object is no recording of this stage', { bucket: detail.bucket?.name, key });
    const { tenantId, jobId } = owner;
    // The key names the tenant and the job, and the job names its file: both must agree before
    // anything is counted, so no object can start (or start the clock of) another job, whatever its key.
    const begun = await jobs.beginAttempt(tenantId, jobId, eventId, Date.now(), key);
    if (begun.kind === 'not-found') return logger.warn('recording without a job', { tenantId, jobId, key });
    if (begun.kind === 'other-file')
      return logger.warn('object is not the file of its job', { tenantId, jobId, key, file: begun.job.file });
    if (begun.kind === 'not-started')
      return logger.info('job already finished: event ignored', { tenantId, jobId, status: begun.job.status });
    const { job, attempt } = begun;
    const upload = job.upload!;
    try {
      const refused = await keyRefusal(job);
      if (refused) return fail(tenantId, job, refused);
      // The object the event named, by its ETag: the URL writes its key once, and this proves it.
      const object = await bucket.open(key, { etag: detail.object?.etag });
      if (!object) return logger.warn('recording vanished before it was read', { tenantId, jobId, key });
      const contentType = upload.contentType;
      if (object.size !== upload.sizeBytes || !isRecordingContentType(contentType)) {
        object.body.destroy();
        return fail(tenantId, job, `The file has ${object.size} bytes, not the ${upload.sizeBytes} declared.`);
      }
      const probe = await probeAudio(object.body, object.size);
      const mismatch = declaredTypeMismatch(contentType, probe);
      if (mismatch) return fail(tenantId, job, mismatch);
      const choice = chooseAnalysis(probe, object.size, maxRecordingSeconds);
      if ('refused' in choice) return fail(tenantId, job, choice.refused);
      const outcome = await analysis.start({ tenantId, jobId, kind: choice.kind, bucket: bucketName, key, probe });
      if (outcome.kind === 'pending') {
        await jobs.markAnalysisSubmitted(tenantId, jobId, choice.kind, Date.now(), probe.durationSeconds);
        return logger.info('analysis submitted', { tenantId, jobId, analysis: choice.kind });
      }
      await settle(tenantId, { ...job, analysis: choice.kind }, outcome);
    } catch (error) {
      if (error instanceof NotAudioError)
        return fail(tenantId, job, `The file is not readable ${upload.contentType}: ${error.message}.`);
      if (error instanceof ObjectChangedError)
        return fail(tenantId, job, 'The file changed after it arrived. Create a new upload to try again.');
      await retryOrFail(tenantId, job, attempt, error);
    }
  }

  /** Transcribe reports that the analysis `jobName` (of `kind`) ended, either way. */
  async function onAnalysisStateChanged(
    eventId: string,
    kind: AnalysisKind,
    jobName: string | undefined,
  ): Promise<void> {
    const owner = jobName ? parseAnalysisJobName(jobName, stage) : undefined;
    if (!owner) return logger.warn('analysis job is not one of this stage', { jobName });
    const { tenantId, jobId } = owner;
    const begun = await jobs.beginAttempt(tenantId, jobId, eventId, Date.now());
    if (begun.kind !== 'attempt') return logger.info('analysis of a finished or unknown job: event ignored', owner);
    try {
      await settle(
        tenantId,
        begun.job,
        await analysis.collect(tenantId, jobId, begun.job.analysis ?? kind, begun.job.upload?.audioSeconds),
      );
    } catch (error) {
      await retryOrFail(tenantId, begun.job, begun.attempt, error);
    }
  }

  /**
   * Every upload job still `started`, looked at once: an analysis under way is asked about, and
   * settled as its event would have settled it (lost or not), or failed once past its processing
   * window; a job not yet analysed is failed once overdue (its file never came, or its processing
   * died), even when nobody reads its status, so it no longer counts against its tenant's
   * recordings in flight. One job's error is logged and left to the next sweep, never the others'.
   */
  async function sweepJobs(nowMs: number): Promise<{ looked: number; settled: number }> {
    let settled = 0;
    const open = await jobs.openJobs(nowMs, SWEEP_LIMIT);
    for (const { tenantId, jobId } of open) {
      try {
        const job = await jobs.get(tenantId, jobId);
        if (job?.status !== 'started') continue;
        if (!job.analysis) {
          const overdue = overdueReason(job, nowMs, deadlines);
          if (!overdue) continue;
          settled++;
          await fail(tenantId, job, overdue, { uploadedAt: job.upload?.uploadedAt });
          continue;
        }
        const outcome = await analysis.collect(tenantId, jobId, job.analysis, job.upload?.audioSeconds);
        const overdue = outcome.kind === 'pending' ? analysisOverdueReason(job, nowMs, deadlines) : undefined;
        if (outcome.kind === 'pending' && !overdue) continue;
        settled++;
        if (overdue) await fail(tenantId, job, overdue);
        else await settle(tenantId, job, outcome);
      } catch (error) {
        logger.error('sweep could not settle a job; the next sweep tries again', { tenantId, jobId, error });
      }
    }
    if (open.length > 0) logger.info('open jobs swept', { looked: open.length, settled });
    return { looked: open.length, settled };
  }

  return { onRecordingArrived, onAnalysisStateChanged, sweepJobs };
}
