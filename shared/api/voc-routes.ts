/**
 * Voice-of-customer recordings: the upload and the job's status. The area's entries of the route table
 * (route-table.ts); its operations' prose and examples are beside them, in voc-docs.ts.
 */
import { IDEMPOTENCY_RECORDS, type RouteSpec } from './route-spec.ts';

/** An upload request is three small fields. */
export const RECORDING_UPLOAD_REQUEST_MAX_BYTES = 4096;

/**
 * The voc routes, in the order the OpenAPI document lists them.
 *
 * @example vocRoutes.map((route) => route.id) // ['createRecording', 'getVocJobStatus']
 */
export const vocRoutes = [
  {
    id: 'createRecording',
    method: 'POST',
    path: '/api/v1/voc/tenants/{tenantId}/recordings',
    handler: 'functions/voc/create-recording-upload.ts',
    scope: 'voc:recordings.write',
    // The job is put and its tenant's count of recordings in flight updated in one transaction.
    tables: { vocJobs: { operations: ['PutItem', 'UpdateItem'] }, idempotency: IDEMPOTENCY_RECORDS },
    recordings: 'presign',
    schemas: {
      path: 'TenantPath',
      query: 'NoQuery',
      body: 'CreateRecordingUploadBody',
      response: { status: 201, schema: 'RecordingUpload' },
    },
    maxBodyBytes: RECORDING_UPLOAD_REQUEST_MAX_BYTES,
    idempotencyKey: true,
    summary: 'Start a VOC recording job: answers where to upload the file (a presigned PUT straight to storage)',
    errors: [400, 409, 413, 422],
  },
  {
    id: 'getVocJobStatus',
    method: 'GET',
    path: '/api/v1/voc/tenants/{tenantId}/recording/{jobId}/status',
    handler: 'functions/voc/get-job-status.ts',
    scope: 'voc:recordings.read',
    tables: { vocJobs: { operations: ['GetItem', 'UpdateItem'] } },
    recordings: 'deadlines',
    schemas: { path: 'VocJobPath', query: 'NoQuery', response: { status: 200, schema: 'VocJobStatus' } },
    summary: 'Get the status of a VOC recording job',
    errors: [400, 404],
  },
] as const satisfies readonly RouteSpec[];
