/**
 * The VOC reporting row a recording job writes: its ID is the job's recordingId (one recording,
 * one row, however often the job is retried), its Datetime the instant the upload was created,
 * and the rest what the analysis found. Fields nobody found stay null.
 */
import type { ReportRow } from '#shared/domain/reporting/report-rows';
import type { VocJob } from './job-status.ts';

/** The row fields an analysis may fill. */
export type RecordingAnalysisFields = Partial<
  Record<
    | 'Duration'
    | 'Direction'
    | 'Media'
    | 'Category'
    | 'Subcategory'
    | 'CategoriesId'
    | 'Summary'
    | 'Sentiment'
    | 'SentimentExplanation'
    | 'Problems'
    | 'KPIs',
    unknown
  >
>;

/** What the rows of uploaded recordings name as their source. */
export const UPLOAD_SOURCE_SYSTEM = 'cxm-upload';

export function recordingRow(job: VocJob, fields: RecordingAnalysisFields): ReportRow {
  return {
    ...fields,
    ID: job.recordingId,
    Datetime: new Date(job.started).toISOString(),
    SourceSystem: UPLOAD_SOURCE_SYSTEM,
  };
}
