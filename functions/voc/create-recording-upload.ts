/**
 * POST /api/v1/voc/tenants/{tenantId}/recordings: a new VOC job and where to upload its file (safe
 * retries apply). A tenant has at most its stage's number of recordings in flight (429 past it), and
 * a keyed retry whose URL has expired says so instead of answering a URL that no longer works.
 */

import { ApiError, badRequest, conflict } from '#shared/api/api-error';
import { newUlid } from '#shared/domain/ids/new-ulid';
import { formatBytes, recordingKey } from '#shared/domain/voc/recording-upload';
import { createApiHandler } from '#shared/http/create-api-handler';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { createRecording } from '#shared/schemas/route-validators.generated';
import {
  maxInFlightPerTenant,
  maxRecordingBytes,
  recordingsBucket,
  uploadUrlTtlSeconds,
} from '#shared/settings/recording-settings';
import { idempotencyLedger, vocJobsStore } from '#shared/store/function-stores';
import { createUploadPresigner } from '#shared/store/presign-recording-upload';

const jobs = vocJobsStore();
const ledger = idempotencyLedger();
const bucket = createUploadPresigner({ bucket: recordingsBucket() });
const maxBytes = maxRecordingBytes();
const ttlSeconds = uploadUrlTtlSeconds();
const inFlightLimit = maxInFlightPerTenant();

/** Recordings finish in minutes: a slot is worth asking for again after this long. */
const BUSY_RETRY_AFTER_SECONDS = 30;

export const handler = createApiHandler(createRecording, async ({ tenantId, caller, body, signal, idempotency }) => {
  if (body.sizeBytes > maxBytes) {
    throw badRequest(
      `sizeBytes ${body.sizeBytes} is over the limit of ${formatBytes(maxBytes)} (${maxBytes} bytes) for one recording.`,
    );
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
        keyId: caller.keyId,
      },
    },
    { inFlightLimit, signal, record: recordAnswer(ledger, idempotency, () => answer) },
  );
  if (outcome.kind === 'busy') {
    throw new ApiError(
      429,
      'RateLimitExceeded',
      `This tenant has ${outcome.limit} recordings in flight, the most it may: upload their files (or let them fail) before creating more, and retry.`,
      {
        'Retry-After': String(BUSY_RETRY_AFTER_SECONDS),
      },
    );
  }
  if (outcome.kind !== 'recorded') return answer;
  const replayed = replayRecorded(outcome.record, idempotency);
  const expiresAt = (JSON.parse(replayed.bodyText ?? '{}') as { upload?: { expiresAt?: string } }).upload?.expiresAt;
  if (expiresAt && Date.parse(expiresAt) <= now.getTime()) {
    throw conflict(
      `The upload this Idempotency-Key created has a URL that expired at ${expiresAt}: its job waits for no file and will fail. Create a new upload with a new Idempotency-Key.`,
    );
  }
  return replayed;
});
