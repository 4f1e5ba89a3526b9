/** POST /api/v1/voc/tenants/{tenantId}/recordings: a new VOC job and where to upload its file (safe retries apply). */
import { newUlid } from '#shared/domain/ids/new-ulid';
import { formatBytes, recordingKey } from '#shared/domain/voc/recording-upload';
import { badRequest } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { createRecording } from '#shared/schemas/route-validators.generated';
import { idempotencyLedger, vocJobsStore } from '#shared/store/function-stores';
import { createUploadPresigner } from '#shared/store/presign-recording-upload';
import { maxRecordingBytes, recordingsBucket, uploadUrlTtlSeconds } from '#shared/store/recording-settings';

const jobs = vocJobsStore();
const ledger = idempotencyLedger();
const bucket = createUploadPresigner({ bucket: recordingsBucket() });
const maxBytes = maxRecordingBytes();
const ttlSeconds = uploadUrlTtlSeconds();

export const handler = createApiHandler(createRecording, async ({ tenantId, body, signal, idempotency }) => {
  if (body.sizeBytes > maxBytes) {
    throw badRequest(`sizeBytes ${body.sizeBytes} is over the limit of ${formatBytes(maxBytes)} (${maxBytes} bytes) for one recording.`);
  }
  const now = new Date();
  const jobId = newUlid(now.getTime());
  const file = recordingKey(tenantId, jobId, body.contentType);
  const upload = await bucket.presignUpload(file, body.contentType, body.sizeBytes, ttlSeconds, now);
  const answer = { status: 201, body: { jobId, upload } };
  const outcome = await jobs.create(
    tenantId,
    {
      id: jobId,
      status: 'started',
      started: now.getTime(),
      file,
      // The VOC row the job writes takes this ID: one recording, one row, whatever retries.
      recordingId: `rec-${jobId}`,
      upload: {
        contentType: body.contentType,
        sizeBytes: body.sizeBytes,
        fileName: body.fileName,
        uploadExpiresAt: Date.parse(upload.expiresAt),
      },
    },
    { signal, record: recordAnswer(ledger, idempotency, () => answer) },
  );
  if (outcome.kind === 'recorded') return replayRecorded(outcome.record, idempotency);
  return answer;
});
