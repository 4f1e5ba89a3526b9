/**
 * A VOC recording job (D7): all five fields always present, `started` in epoch milliseconds. The
 * only transitions are started -> completed and started -> failed.
 */
export const JOB_STATUSES = ['started', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type FinalJobStatus = Exclude<JobStatus, 'started'>;

export interface VocJob {
  id: string;
  status: JobStatus;
  started: number;
  file: string;
  recordingId: string;
}

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return from === 'started' && (to === 'completed' || to === 'failed');
}
