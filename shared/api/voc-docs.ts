/**
 * The voc area's operations in the OpenAPI document: their prose and examples, what a reader needs
 * beyond their route entries (voc-routes.ts) and the schemas. Every example must validate against its
 * schema (test/contract/openapi-examples.test.ts).
 */
import { type AreaDocs, error, example } from './operation-doc.ts';
import type { vocRoutes } from './voc-routes.ts';

/**
 * The voc area: its tag's description, and each operation's docs.
 *
 * @example vocDocs.operations.createRecording.description
 */
export const vocDocs: AreaDocs<(typeof vocRoutes)[number]['id']> = {
  description: 'Voice-of-customer recording jobs.',
  operations: {
    createRecording: {
      description:
        'Starts a VOC recording job and answers where to send the file: a presigned `PUT` straight to storage (the recording ' +
        'never passes through this API, whose requests are limited to 10 MB). Send the file with exactly the answered headers ' +
        '(`curl -T call.wav -H "Content-Type: audio/wav" -H "If-None-Match: *" "<url>"`); storage refuses a file of another type or size, ' +
        'a PUT without `If-None-Match: *`, the URL after `expiresAt`, and a second PUT to it (412: a URL writes its file once). ' +
        "The job is `started` from now on, and counts among the tenant's recordings in flight (at most 20 by default: 429 past it) until it ends: its arrival starts the analysis (Call Analytics for a two-channel call, a transcription for a mono one), which writes the recording's row " +
        "to the VOC list (`ID` = the job's `recordingId`) and then completes the job; a file that is not readable audio of the " +
        'declared type fails it with a `failureReason`, and so does an upload that never arrives before the URL expires. ' +
        '`Idempotency-Key` makes a retry answer the same job.',
      requestExamples: {
        wav: example('A WAV recording', { fileName: 'call-0001.wav', contentType: 'audio/wav', sizeBytes: 1048576 }),
      },
      success: {
        201: {
          description: 'The job is `started`; upload the file to `upload.url` before `upload.expiresAt`.',
          examples: {
            created: example('Where to upload', {
              jobId: '01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
              upload: {
                method: 'PUT',
                url: 'https://cxm-prod-recordings-123456789012-eu-west-1.s3.eu-west-1.amazonaws.com/recordings/acme/01JF3ZK6Q5V2X8M4N7R9T1W3Y5.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost%3Bif-none-match&X-Amz-Signature=...',
                headers: { 'Content-Type': 'audio/wav', 'Content-Length': '1048576', 'If-None-Match': '*' },
                expiresAt: '2026-01-01T09:15:00.000Z',
              },
            }),
          },
        },
      },
      errorExamples: {
        400: {
          tooLarge: example(
            'Over the size limit',
            error('BadRequest', 'sizeBytes 600000000 is over the limit of 500 MB (500000000 bytes) for one recording.'),
          ),
        },
        409: {
          expired: example(
            'A keyed retry after the URL expired',
            error(
              'Conflict',
              'The upload this Idempotency-Key created has a URL that expired at 2026-01-01T09:15:00.000Z: its job waits for no file and will fail. Create a new upload with a new Idempotency-Key.',
            ),
          ),
        },
        429: {
          inFlight: example(
            "The tenant's recordings in flight",
            error(
              'RateLimitExceeded',
              'This tenant has 20 recordings in flight, the most it may: upload their files (or let them fail) before creating more, and retry.',
            ),
          ),
        },
      },
    },
    getVocJobStatus: {
      description:
        'The status of a VOC recording job. Poll until `completed` or `failed`: a job only moves from `started` to one of them. ' +
        '`started` is in epoch milliseconds.',
      success: {
        200: {
          description: 'The job.',
          examples: {
            completed: example('Completed', {
              id: 'job-0001',
              status: 'completed',
              started: 1767258000000,
              file: 'recordings/acme/call-0001.wav',
              recordingId: 'rec-0001',
            }),
            started: example('Still running', {
              id: 'job-0002',
              status: 'started',
              started: 1767261600000,
              file: 'recordings/acme/call-0002.wav',
              recordingId: 'rec-0002',
            }),
            failed: example('Failed, and why', {
              id: '01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
              status: 'failed',
              started: 1767258000000,
              file: 'recordings/acme/01JF3ZK6Q5V2X8M4N7R9T1W3Y5.wav',
              recordingId: 'rec-01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
              failureReason: 'The file is not readable audio/wav: it holds no WAVE audio.',
            }),
          },
        },
      },
      errorExamples: {
        400: { jobId: example('A refused job id', error('BadRequest', "'jobId' must not contain '/' or '\\'.")) },
        404: {
          absent: example('No such job', error('NotFound', "No VOC recording job 'job-9999' exists in this tenant.")),
        },
      },
    },
  },
};
