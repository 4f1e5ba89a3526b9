/**
 * Running a VOC recording job, the use case behind functions/voc/process-recording.ts (which wires
 * the real stores, bucket and analysis): "Object Created" for a recording starts one, "Call
 * Analytics Job State Change" finishes one on a stage. A job is checked against the object that
 * arrived (the key must be the job's own file, under the job's tenant), the file must be readable
 * audio of the declared type, the analysis runs, its row is written to the VOC list, and only then
 * is the job `completed`. Every transition is conditional on `started`: a re-delivered event
 * changes nothing. An unexpected error is thrown so Lambda retries the event; on the last attempt
 * at the same event the job is failed instead, and a crash there is failed when the job is next
 * read (its processing window).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { declaredTypeMismatch } from '#shared/domain/voc/audio-probe';
import type { StoredVocJob } from '#shared/domain/voc/job-status';
import { type RecordingAnalysisFields, recordingRow } from '#shared/domain/voc/recording-row';
import { isRecordingContentType, parseRecordingKey } from '#shared/domain/voc/recording-upload';
import type { RecordingsBucket } from '#shared/store/recordings-bucket';
import type { ReportingRowsStore } from '#shared/store/reporting-rows-store';
import type { VocJobsStore } from '#shared/store/voc-jobs-store';
import { parseAnalysisJobName } from './call-analytics-analysis.ts';
import { NotAudioError, probeAudio } from './probe-audio.ts';
import type { AnalysisOutcome, RecordingAnalysis } from './recording-analysis.ts';

/** Deliveries of one event: Lambda's first try and its two retries of an asynchronous invocation. */
export const MAX_PROCESSING_ATTEMPTS = 3;

export interface ObjectCreatedDetail {
  bucket?: { name?: string };
  object?: { key?: string; size?: number };
}

export interface AnalysisStateDetail {
  JobName?: string;
  JobStatus?: string;
}

export interface RecordingJobPorts {
  stage: string;
  bucketName: string;
  bucket: RecordingsBucket;
  jobs: VocJobsStore;
  rows: ReportingRowsStore;
  analysis: RecordingAnalysis;
  /** On a stage: the analysis whose result comes back as its own event. */
  callAnalytics?: { collect(tenantId: string, jobId: string): Promise<AnalysisOutcome> };
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export function createRecordingJobRunner({ stage, bucketName, bucket, jobs, rows, analysis, callAnalytics, logger }: RecordingJobPorts) {
  async function fail(tenantId: string, jobId: string, reason: string): Promise<void> {
    const outcome = await jobs.finish(tenantId, jobId, 'failed', reason);
    logger.info('job failed', { tenantId, jobId, reason, outcome });
  }

  /**
   * The row first, then the transition: a job is never `completed` without its row. Should the job
   * have been failed meanwhile (its window ran out while this attempt ran), the row goes again: a
   * failed job has no row in the list.
   */
  async function complete(tenantId: string, job: StoredVocJob, fields: RecordingAnalysisFields): Promise<void> {
    await rows.putRows(tenantId, 'voc', [shapeRow('voc', tenantId, recordingRow(job, fields))]);
    const outcome = await jobs.finish(tenantId, job.id, 'completed');
    if (outcome === 'done') return logger.info('job completed', { tenantId, jobId: job.id, recordingId: job.recordingId });
    const now = await jobs.get(tenantId, job.id);
    if (now?.status !== 'completed') await rows.deleteRows(tenantId, 'voc', [job.recordingId]);
    logger.warn('job finished elsewhere while its row was written', { tenantId, jobId: job.id, status: now?.status });
  }

  async function settle(tenantId: string, job: StoredVocJob, outcome: AnalysisOutcome): Promise<void> {
    if (outcome.kind === 'done') await complete(tenantId, job, outcome.fields);
    else if (outcome.kind === 'failed') await fail(tenantId, job.id, outcome.reason);
  }

  /** An unexpected error: thrown for Lambda to retry the event, except on its last attempt, which fails the job. */
  async function retryOrFail(tenantId: string, jobId: string, attempt: number, error: unknown): Promise<void> {
    if (attempt < MAX_PROCESSING_ATTEMPTS) throw error;
    logger.error('processing failed on its last attempt', { tenantId, jobId, attempt, error });
    await fail(tenantId, jobId, `Processing failed after ${attempt} attempts (${error instanceof Error ? error.name : 'error'}). Create a new upload to try again.`);
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
    if (begun.kind === 'other-file') return logger.warn('object is not the file of its job', { tenantId, jobId, key, file: begun.job.file });
    if (begun.kind === 'not-started') return logger.info('job already finished: event ignored', { tenantId, jobId, status: begun.job.status });
    const { job, attempt } = begun;
    const upload = job.upload!;
    try {
      const object = await bucket.open(key);
      if (!object) return logger.warn('recording vanished before it was read', { tenantId, jobId, key });
      const contentType = upload.contentType;
      if (object.size !== upload.sizeBytes || !isRecordingContentType(contentType)) {
        object.body.destroy();
        return fail(tenantId, jobId, `The file has ${object.size} bytes, not the ${upload.sizeBytes} declared.`);
      }
      const probe = await probeAudio(object.body, object.size);
      const mismatch = declaredTypeMismatch(contentType, probe);
      if (mismatch) return fail(tenantId, jobId, mismatch);
      await settle(tenantId, job, await analysis.start({ tenantId, jobId, bucket: bucketName, key, probe }));
    } catch (error) {
      if (error instanceof NotAudioError) return fail(tenantId, jobId, `The file is not readable ${upload.contentType}: ${error.message}.`);
      await retryOrFail(tenantId, jobId, attempt, error);
    }
  }

  async function onAnalysisStateChanged(eventId: string, detail: AnalysisStateDetail): Promise<void> {
    const owner = detail.JobName ? parseAnalysisJobName(detail.JobName, stage) : undefined;
    if (!owner || !callAnalytics) return logger.warn('analysis job is not one of this stage', { jobName: detail.JobName });
    const { tenantId, jobId } = owner;
    const begun = await jobs.beginAttempt(tenantId, jobId, eventId, Date.now());
    if (begun.kind !== 'attempt') return logger.info('analysis of a finished or unknown job: event ignored', owner);
    try {
      await settle(tenantId, begun.job, await callAnalytics.collect(tenantId, jobId));
    } catch (error) {
      await retryOrFail(tenantId, jobId, begun.attempt, error);
    }
  }

  return { onRecordingArrived, onAnalysisStateChanged };
}
