/** GET /api/v1/voc/tenants/{tenantId}/recording/{jobId}/status (spec endpoint 9, D7). */
import { notFound } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { getVocJobStatus } from '#shared/schemas/route-validators.generated';
import { documentClient } from '#shared/store/dynamo-client';
import { tableName } from '#shared/store/table-name';
import { createVocJobsStore } from '#shared/store/voc-jobs-store';

const jobs = createVocJobsStore(documentClient(), tableName('vocJobs'));

export const handler = createApiHandler(getVocJobStatus, async ({ tenantId, path }) => {
  const job = await jobs.get(tenantId, path.jobId!);
  if (!job) throw notFound(`No VOC recording job '${path.jobId}' exists in this tenant.`);
  return { status: 200, body: job };
});
