/**
 * VOC recordings end to end over real HTTP, against DynamoDB Local, the local S3 server and the
 * local stand-in for Amazon Transcribe: create an upload, PUT the file to the
 * presigned URL, poll the job to `completed` (a mono file through a transcription job, a
 * two-channel call through Call Analytics), find its row in the VOC list; and every way it can go
 * wrong (S3 refusing, a file that is not audio, one no analysis takes, an upload that never comes,
 * a duplicate event, a processor that fails, two tenants).
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_CALL, sampleCall } from '#infra/cli/recordings/sample-call';
import { tinyWav } from '#infra/cli/recordings/tiny-wav';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import type { BoundGateway } from '#infra/local/serve-gateway';
import { fillPath, routeById } from '#shared/api/route-table';
import { documentClient } from '#shared/store/dynamo-client';
import { createVocJobsStore } from '#shared/store/voc-jobs-store';
import { type DynamoFaultProxy, startDynamoFaultProxy } from '#test/support/dynamo-fault-proxy';
import { directStores, serveGatewaysOver } from '#test/support/serve-gateway-over';
import { documentedFetch, uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

// Stage settings of this file's functions (the functions read them from their environment, as deployed ones do).
process.env.CXM_RECORDING_MAX_BYTES = '2000000';
// Long enough for a create and its PUT on a loaded machine, short enough to wait out once.
process.env.CXM_RECORDING_UPLOAD_URL_TTL_SECONDS = '8';
process.env.CXM_RECORDING_UPLOAD_GRACE_SECONDS = '0';

interface Upload {
  jobId: string;
  upload: { method: string; url: string; headers: Record<string, string>; expiresAt: string };
}

interface JobStatus {
  id: string;
  status: string;
  started: number;
  file: string;
  recordingId: string;
  failureReason?: string;
  analysis?: string;
}

let proxy: DynamoFaultProxy;
let gateway: BoundGateway;
let direct: ReturnType<typeof directStores>;
let s3Endpoint: string;
let bucket: string;
const tenant = uniqueTenant('rec');
const other = uniqueTenant('rec-other');
let key: string;
let otherKey: string;
/** The upload whose file never comes: created first, so its URL expires while the other tests run. */
let expiring: { created: Upload; wav: Buffer };

beforeAll(async () => {
  const { endpoint, credentials, tables } = workerDynamo();
  proxy = await startDynamoFaultProxy(endpoint);
  [gateway] = (await serveGatewaysOver({ endpoint: proxy.url, credentials }, tables, [0])) as [BoundGateway];
  s3Endpoint = process.env.AWS_ENDPOINT_URL_S3!;
  bucket = process.env.CXM_RECORDINGS_BUCKET!;
  direct = directStores({ endpoint, credentials }, tables);
  ({ key } = await direct.createKey([tenant], ['voc:*', 'reporting:voc.read']));
  ({ key: otherKey } = await direct.createKey([other], ['voc:*', 'reporting:voc.read']));
  const wav = tinyWav(0.25);
  expiring = { created: await createUpload(wav), wav };
});

afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  direct?.destroy();
});

const jobsStore = () => {
  const { endpoint, credentials, tables } = workerDynamo();
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials }));
  return createVocJobsStore(client, tables.vocJobs);
};

async function api(method: string, path: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await documentedFetch(`${gateway.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: (text ? JSON.parse(text) : undefined) as unknown };
}

const uploadsPath = (t = tenant) => fillPath(routeById('createRecording'), { tenantId: t });
const statusPath = (jobId: string, t = tenant) => fillPath(routeById('getVocJobStatus'), { tenantId: t, jobId });

async function createUpload(file: Buffer, contentType = 'audio/wav', t = tenant, k = key): Promise<Upload> {
  const answer = await api('POST', uploadsPath(t), k, { fileName: 'call.wav', contentType, sizeBytes: file.length });
  expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  return answer.json as Upload;
}

/** The PUT `curl -T` sends: the file, with the answered headers (fetch sets Content-Length itself). */
async function put(
  upload: Upload['upload'],
  body: Buffer,
  contentType = upload.headers['Content-Type']!,
  headers: Record<string, string> = { 'If-None-Match': '*' },
) {
  const response = await fetch(upload.url, {
    method: upload.method,
    body,
    headers: { 'Content-Type': contentType, ...headers },
  });
  return { status: response.status, text: await response.text() };
}

async function status(jobId: string, t = tenant, k = key): Promise<JobStatus> {
  const answer = await api('GET', statusPath(jobId, t), k);
  expect(answer.status).toBe(200);
  return answer.json as JobStatus;
}

/** Polls as a client would, until the job leaves `started` (events are delivered asynchronously). */
async function settled(jobId: string, t = tenant, k = key): Promise<JobStatus> {
  for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
    await gateway.eventsSettled();
    const job = await status(jobId, t, k);
    if (job.status !== 'started') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${jobId} still started`);
}

async function vocList(t = tenant, k = key) {
  const answer = await api('GET', `${fillPath(routeById('listVocConversations'), { tenantId: t })}?range=last_day`, k);
  expect(answer.status).toBe(200);
  return answer.json as { total: number; data: Record<string, unknown>[] };
}

describe('a recording, end to end', () => {
  it('upload, poll to completed, and its row in the VOC list with its duration (totals included)', async () => {
    const before = await vocList();
    const wav = tinyWav(1.5);
    const created = await createUpload(wav);
    expect(created.upload).toMatchObject({
      method: 'PUT',
      headers: { 'Content-Type': 'audio/wav', 'Content-Length': String(wav.length) },
    });
    expect(new URL(created.upload.url).origin).toBe(s3Endpoint);
    const started = await status(created.jobId);
    expect(started).toEqual({
      id: created.jobId,
      status: 'started',
      started: expect.any(Number),
      file: `recordings/${tenant}/${created.jobId}.wav`,
      recordingId: `rec-${created.jobId}`,
    });
    expect((await put(created.upload, wav)).status).toBe(200);
    const done = await settled(created.jobId);
    // A mono file: a transcription job, which tells voices apart but finds no sentiment or summary.
    expect(done).toEqual({ ...started, status: 'completed', analysis: 'transcription' });
    const after = await vocList();
    expect(after.total).toBe(before.total + 1);
    const row = after.data.find((candidate) => candidate.ID === done.recordingId);
    expect(row).toMatchObject({
      ID: done.recordingId,
      TenantID: tenant,
      Duration: 1.5,
      Media: 'voice',
      SourceSystem: 'cxm-upload',
      Summary: null,
    });
    expect(row!.DatetimeUTC).toBe(new Date(started.started).toISOString());
  });

  it('a two-channel call goes to Call Analytics (agent and customer channels) and completes with its length', async () => {
    const call = sampleCall();
    const created = await createUpload(call, SAMPLE_CALL.contentType);
    expect((await put(created.upload, call)).status).toBe(200);
    const done = await settled(created.jobId);
    expect(done).toMatchObject({ status: 'completed', analysis: 'call-analytics' });
    const row = (await vocList()).data.find((candidate) => candidate.ID === done.recordingId);
    // What the local stand-in hears: the length from the file's headers; a listener's fields stay null.
    expect(row).toMatchObject({
      ID: done.recordingId,
      Duration: 14.659,
      Media: 'voice',
      Sentiment: null,
      Summary: null,
      KPIs: null,
      Problems: null,
    });
  });

  it('a recording no analysis takes (three channels) fails before any analysis, saying what to do', async () => {
    const wav = tinyWav(0.25, { channels: 3 });
    const created = await createUpload(wav);
    expect((await put(created.upload, wav)).status).toBe(200);
    const done = await settled(created.jobId);
    expect(done).toMatchObject({
      status: 'failed',
      failureReason: expect.stringContaining('The recording has 3 channels; the analysis takes mono audio'),
    });
    expect(done.analysis).toBeUndefined();
  });

  it('a duplicate event (the same object written again, which only the local S3 lets an operator do) changes nothing', async () => {
    const wav = tinyWav(0.5);
    const created = await createUpload(wav);
    expect((await put(created.upload, wav)).status).toBe(200);
    const done = await settled(created.jobId);
    const rows = await vocList();
    // A stage's bucket policy refuses a PUT without If-None-Match; locally it makes a second "Object Created" of the same bytes.
    const operator = new S3Client({ endpoint: s3Endpoint, region: LOCAL_REGION, forcePathStyle: true });
    await operator.send(new PutObjectCommand({ Bucket: bucket, Key: done.file, Body: wav, ContentType: 'audio/wav' }));
    operator.destroy();
    await gateway.eventsSettled();
    expect(await status(created.jobId)).toEqual(done);
    expect(await vocList()).toEqual(rows);
  });

  it('Idempotency-Key: a retried create answers the same job', async () => {
    const body = { fileName: 'retry.wav', contentType: 'audio/wav', sizeBytes: 44 };
    const first = await api('POST', uploadsPath(), key, body, { 'Idempotency-Key': `rec-${tenant}` });
    const again = await api('POST', uploadsPath(), key, body, { 'Idempotency-Key': `rec-${tenant}` });
    expect(first.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(
      (await api('POST', uploadsPath(), key, { ...body, sizeBytes: 45 }, { 'Idempotency-Key': `rec-${tenant}` }))
        .status,
    ).toBe(422);
  });
});

describe('bad input gets a clear answer', () => {
  it.each([
    [{ fileName: 'a.aac', contentType: 'audio/aac', sizeBytes: 10 }, /contentType/],
    [{ fileName: 'a.wav', contentType: 'audio/wav', sizeBytes: 2_000_001 }, /over the limit of 2 MB \(2000000 bytes\)/],
    [{ fileName: 'a.wav', contentType: 'audio/wav', sizeBytes: 0 }, /sizeBytes/],
    [{ fileName: 'a/b.wav', contentType: 'audio/wav', sizeBytes: 10 }, /fileName/],
    [{ fileName: 'a.wav', contentType: 'audio/wav', sizeBytes: 10, extra: 1 }, /extra/],
  ])('%j: 400', async (body, message) => {
    const answer = await api('POST', uploadsPath(), key, body);
    expect(answer.status).toBe(400);
    expect((answer.json as { message: string }).message).toMatch(message);
  });

  it('S3 refuses a file bigger than declared, of another type, with a forged signature or none (an anonymous PUT, GET or listing); the job waits for the right one', async () => {
    const wav = tinyWav(0.25);
    const created = await createUpload(wav);
    expect((await put(created.upload, Buffer.concat([wav, Buffer.alloc(10)]))).status).toBe(403);
    expect((await put(created.upload, wav, 'audio/mpeg')).status).toBe(403);
    // One hex digit of the signature changed (to another digit, whatever it was).
    const forged = {
      ...created.upload,
      url: created.upload.url.replace(
        /X-Amz-Signature=(.)/,
        (_all, digit: string) => `X-Amz-Signature=${digit === '0' ? '1' : '0'}`,
      ),
    };
    expect((await put(forged, wav)).status).toBe(403);
    // The URL with its signature stripped is an anonymous request, which a private bucket refuses.
    const unsigned = new URL(created.upload.url);
    for (const name of [...unsigned.searchParams.keys()])
      if (name.startsWith('X-Amz-')) unsigned.searchParams.delete(name);
    expect((await put({ ...created.upload, url: unsigned.toString() }, wav)).status).toBe(403);
    const bucketUrl = `${unsigned.origin}${unsigned.pathname.split('/').slice(0, 2).join('/')}`;
    expect((await fetch(unsigned)).status).toBe(403);
    expect((await fetch(`${bucketUrl}?list-type=2`)).status).toBe(403);
    await gateway.eventsSettled();
    expect((await status(created.jobId)).status).toBe('started');
    expect((await put(created.upload, wav)).status).toBe(200);
    expect((await settled(created.jobId)).status).toBe('completed');
  });

  it('S3 serves nothing to a request that only pretends to be signed: a signature or credential in the query alone, a bogus Authorization, a signature of another key', async () => {
    const wav = tinyWav(0.25);
    const created = await createUpload(wav);
    const url = new URL(created.upload.url);
    const bucketUrl = `${url.origin}${url.pathname.split('/').slice(0, 2).join('/')}`;
    const credential = url.searchParams.get('X-Amz-Credential')!;
    const pretending = [
      `${bucketUrl}?X-Amz-Signature=x`,
      `${bucketUrl}?list-type=2&X-Amz-Signature=${url.searchParams.get('X-Amz-Signature')}`,
      `${bucketUrl}?X-Amz-Credential=${encodeURIComponent(credential)}&X-Amz-Signature=x`,
      `${url.origin}${url.pathname}?X-Amz-Signature=x`,
    ];
    for (const target of pretending) {
      expect((await fetch(target)).status, target).toBe(403);
      expect(
        (await fetch(target, { method: 'PUT', body: wav, headers: { 'Content-Type': 'audio/wav' } })).status,
        target,
      ).toBe(403);
    }
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    const bogus = {
      Authorization: `AWS4-HMAC-SHA256 Credential=${credential}, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
      'x-amz-date': amzDate,
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    };
    expect((await fetch(bucketUrl, { headers: bogus })).status).toBe(403);
    // Signed properly, with a key pair the local S3 never issued.
    const stranger = new S3Client({
      endpoint: s3Endpoint,
      region: LOCAL_REGION,
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIASTRANGER0000000', secretAccessKey: 'not-a-key-of-this-installation' },
    });
    await expect(
      stranger.send(
        new PutObjectCommand({ Bucket: bucket, Key: `recordings/${tenant}/${created.jobId}.wav`, Body: wav }),
      ),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    stranger.destroy();
    await gateway.eventsSettled();
    expect((await status(created.jobId)).status).toBe('started');
  });

  it('an upload URL writes its file once: a second PUT is 412 and changes neither the job nor its row; a PUT without If-None-Match is refused', async () => {
    const wav = tinyWav(0.5);
    const created = await createUpload(wav);
    expect((await put(created.upload, wav, 'audio/wav', {})).status).toBe(403);
    expect((await put(created.upload, wav)).status).toBe(200);
    const done = await settled(created.jobId);
    expect(done.status).toBe('completed');
    const rows = await vocList();
    const other = Buffer.concat([wav.subarray(0, 44), Buffer.alloc(wav.length - 44, 7)]);
    const again = await put(created.upload, other);
    expect(again.status).toBe(412);
    expect(again.text).toContain('<Code>PreconditionFailed</Code>');
    await gateway.eventsSettled();
    expect(await status(created.jobId)).toEqual(done);
    expect(await vocList()).toEqual(rows);
  });

  it('a file that is not audio ends failed with the reason', async () => {
    const junk = Buffer.from('this is a text file, not a recording at all\n'.repeat(20));
    const created = await createUpload(junk);
    expect((await put(created.upload, junk)).status).toBe(200);
    const job = await settled(created.jobId);
    expect(job.status).toBe('failed');
    expect(job.failureReason).toMatch(/^The file is not readable audio\/wav: /);
  });

  it('audio of another type than declared ends failed, naming both', async () => {
    const wav = tinyWav(0.25);
    const created = await createUpload(wav, 'audio/flac');
    expect((await put(created.upload, wav)).status).toBe(200);
    const job = await settled(created.jobId);
    expect(job).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(/declared audio\/flac but holds WAVE/),
    });
  });
});

describe('two tenants', () => {
  it("a tenant cannot read another's job, and an object under another tenant's prefix starts nothing", async () => {
    const wav = tinyWav(0.25);
    const mine = await createUpload(wav);
    expect((await api('GET', statusPath(mine.jobId, other), otherKey)).status).toBe(404);
    expect((await api('GET', statusPath(mine.jobId, other), key)).status).toBe(403);
    // Written straight to the bucket (as an operator could): the other tenant's prefix, my job's id.
    const s3 = new S3Client({ endpoint: s3Endpoint, region: LOCAL_REGION, forcePathStyle: true });
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `recordings/${other}/${mine.jobId}.wav`,
        Body: wav,
        ContentType: 'audio/wav',
      }),
    );
    await gateway.eventsSettled();
    expect((await status(mine.jobId)).status).toBe('started');
    expect(
      (await vocList(other, otherKey)).data.some((row) => row.ID === mine.jobId || row.ID === `rec-${mine.jobId}`),
    ).toBe(false);
    s3.destroy();
  });
});

describe('a processor that fails', () => {
  it('is retried, and the job completes once the store answers again', async () => {
    const wav = tinyWav(0.25);
    const created = await createUpload(wav);
    // The row's write fails for every SDK attempt of the first processing attempt (the SDK's
    // default, which the bundles' clients have too).
    const sdkAttempts = await documentClient().config.maxAttempts();
    const fault = proxy.inject({
      operation: 'TransactWriteItems',
      bodyContains: `rec-${created.jobId}`,
      fault: 'InternalServerError',
      times: sdkAttempts,
    });
    expect((await put(created.upload, wav)).status).toBe(200);
    const job = await settled(created.jobId);
    fault.remove();
    expect(fault.faulted).toBe(sdkAttempts);
    expect(job.status).toBe('completed');
    expect((await jobsStore().get(tenant, created.jobId))?.upload?.attempts).toBe(2);
  });

  it('after its retries the job is failed, never stuck', async () => {
    const wav = tinyWav(0.25);
    const created = await createUpload(wav);
    const fault = proxy.inject({
      operation: 'TransactWriteItems',
      bodyContains: `rec-${created.jobId}`,
      fault: 'InternalServerError',
    });
    expect((await put(created.upload, wav)).status).toBe(200);
    const job = await settled(created.jobId);
    fault.remove();
    expect(job.status).toBe('failed');
    expect(job.failureReason).toMatch(/^Processing failed after 3 attempts/);
    expect((await vocList()).data.some((row) => row.ID === job.recordingId)).toBe(false);
  });
});

describe('an upload that never comes', () => {
  it('S3 refuses the URL after it expires, and the job whose file never came is failed, saying why', async () => {
    // Created before the other tests ran (beforeAll): its URL has mostly run out by now.
    const { created, wav } = expiring;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Date.parse(created.upload.expiresAt) - Date.now() + 1100)),
    );
    const late = await put(created.upload, wav);
    expect(late.status).toBe(403);
    expect(late.text).toContain('Request has expired');
    const job = await status(created.jobId);
    expect(job.status).toBe('failed');
    expect(job.failureReason).toMatch(/not uploaded before its upload URL expired/);
  });
});
