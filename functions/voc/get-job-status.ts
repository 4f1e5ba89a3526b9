/**
 * GET /api/v1/voc/tenants/{tenantId}/recording/{jobId}/status (VOC job status). A job
 * whose upload or processing is overdue is failed here, by the same conditional transition the
 * processor uses, so a poller never waits on a job that can no longer finish.
 */

import { notFound } from '#shared/api/api-error';
import { overdueReason, type StoredVocJob, type VocJob } from '#shared/domain/voc/job-status';
import { createApiHandler } from '#shared/http/create-api-handler';
import { getVocJobStatus } from '#shared/schemas/route-validators.generated';
import { jobDeadlines } from '#shared/settings/recording-settings';
import { vocJobsStore } from '#shared/store/function-stores';

const jobs = vocJobsStore();
const deadlines = jobDeadlines();

const contractView = ({ upload: _upload, ...job }: StoredVocJob): VocJob => job;

export const handler = createApiHandler(getVocJobStatus, async ({ tenantId, path }) => {
  const jobId = path.jobId;
  let job = await jobs.get(tenantId, jobId);
  if (!job) throw notFound(`No VOC recording job '${jobId}' exists in this tenant.`);
  const reason = overdueReason(job, Date.now(), deadlines);
  if (reason) {
    // Only if the file is still as absent (or as long arrived) as the verdict saw it.
    await jobs.finish(tenantId, job, 'failed', { reason, basis: { uploadedAt: job.upload?.uploadedAt } });
    // Whoever won the transition (this read or the processor), the job now says so.
    job = (await jobs.get(tenantId, jobId)) ?? job;
  }
  return { status: 200, body: contractView(job) };
});
