/**
 * What one tenant's recordings may take, over real HTTP: at most the stage's
 * number of recordings in flight (here 3), past which a new upload is 429 with Retry-After while
 * another tenant's jobs go on; a place comes back when a job ends, also a job nobody reads whose
 * file never came (the sweep fails it). And two edges of an upload's life: a keyed retry after its
 * URL expired says so (409), and the file of an upload whose key was revoked before it arrived is
 * refused, naming the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyWav } from '#infra/cli/recordings/tiny-wav';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { type BoundGateway, bindGateway } from '#infra/local/serve-gateway';
import { fillPath, routeById } from '#shared/api/route-table';
import { revokeKey } from '#shared/auth/revoke-key';
import { directStores } from '#test/support/serve-gateway-over';
import { documentedFetch, uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

// This file's stage settings (the functions read them from their environment, as deployed ones do).
process.env.CXM_RECORDING_MAX_IN_FLIGHT = '3';
process.env.CXM_RECORDING_UPLOAD_URL_TTL_SECONDS = '4';
process.env.CXM_RECORDING_UPLOAD_GRACE_SECONDS = '0';

let gateway: BoundGateway;
let direct: ReturnType<typeof directStores>;

beforeAll(async () => {
  const { endpoint, credentials, tables } = workerDynamo();
  pointAtLocalDynamo({ endpoint, credentials }, tables);
  gateway = await bindGateway(0);
  // The sweep every second: a job nobody reads is failed once overdue.
  const { s3Endpoint } = await gateway.serve({ authCacheTtlSeconds: 0, scheduleEverySeconds: 1 });
  // The local S3 loads its server at its first request (half a second, more on a busy machine):
  // made here, so that no upload below spends its 4 s URL waiting for it. Anonymous: refused.
  expect((await fetch(s3Endpoint)).status).toBe(403);
  direct = directStores({ endpoint, credentials }, tables);
});

afterAll(async () => {
  await gateway?.close();
  direct?.destroy();
});

async function api(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await documentedFetch(`${gateway.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

interface Upload {
  jobId: string;
  upload: { url: string };
}

const wav = tinyWav(0.5);
const create = (tenant: string, key: string, headers: Record<string, string> = {}) =>
  api(
    'POST',
    fillPath(routeById('createRecording'), { tenantId: tenant }),
    key,
    { fileName: 'call.wav', contentType: 'audio/wav', sizeBytes: wav.length },
    headers,
  );
const send = (upload: Upload) =>
  fetch(upload.upload.url, {
    method: 'PUT',
    body: wav,
    headers: { 'Content-Type': 'audio/wav', 'If-None-Match': '*' },
  });

/** Polls the job as a client would, until it leaves `started`. */
async function ended(tenant: string, key: string, jobId: string): Promise<Record<string, unknown>> {
  for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
    const job = await api('GET', fillPath(routeById('getVocJobStatus'), { tenantId: tenant, jobId }), key);
    if (job.json.status !== 'started') return job.json;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`job ${jobId} still started`);
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('condition never held');
}

describe("a tenant's recordings in flight", () => {
  it("past the stage's number a new upload is 429 with Retry-After, nothing created; another tenant's recording goes on; a job that ends frees a place", async () => {
    const busy = uniqueTenant('burst');
    const calm = uniqueTenant('calm');
    const { key: busyKey } = await direct.createKey([busy], ['voc:*']);
    const { key: calmKey } = await direct.createKey([calm], ['voc:*']);
    const made: Upload[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await create(busy, busyKey);
      expect(answer.status).toBe(201);
      made.push(answer.json as unknown as Upload);
    }
    const refused = await create(busy, busyKey);
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      code: 'RateLimitExceeded',
      message: expect.stringContaining('This tenant has 3 recordings in flight'),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Sent while its URL (4 s here) still lives; the other tenant's upload is created meanwhile.
    expect((await send(made[0]!)).status).toBe(200);

    const theirs = await create(calm, calmKey);
    expect(theirs.status).toBe(201);
    expect((await send(theirs.json as unknown as Upload)).status).toBe(200);
    expect(await ended(calm, calmKey, (theirs.json as unknown as Upload).jobId)).toMatchObject({ status: 'completed' });

    expect(await ended(busy, busyKey, made[0]!.jobId)).toMatchObject({ status: 'completed' });
    expect((await create(busy, busyKey)).status).toBe(201);
  });

  it('the places of jobs whose files never came come back once their URLs expire, though nobody reads them (the sweep)', async () => {
    const tenant = uniqueTenant('abandoned');
    const { key } = await direct.createKey([tenant], ['voc:*']);
    for (let i = 0; i < 3; i++) expect((await create(tenant, key)).status).toBe(201);
    expect((await create(tenant, key)).status).toBe(429);
    await until(async () => (await create(tenant, key)).status === 201);
  });
});

describe('the edges of an upload', () => {
  it('a keyed retry whose URL has expired says so, and how to go on: 409 Conflict', async () => {
    const tenant = uniqueTenant('late-retry');
    const { key } = await direct.createKey([tenant], ['voc:*']);
    const first = await create(tenant, key, { 'Idempotency-Key': 'late' });
    expect(first.status).toBe(201);
    const replay = await create(tenant, key, { 'Idempotency-Key': 'late' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await new Promise((resolve) => setTimeout(resolve, 4100));
    const late = await create(tenant, key, { 'Idempotency-Key': 'late' });
    expect(late.status).toBe(409);
    expect(late.json).toEqual({
      code: 'Conflict',
      message: expect.stringMatching(/has a URL that expired at .*Create a new upload with a new Idempotency-Key\.$/),
    });
  });

  it('the file of an upload whose key was revoked before it arrived is refused, naming the key', async () => {
    const tenant = uniqueTenant('revoked');
    const { key, keyId } = await direct.createKey([tenant], ['voc:*']);
    const { key: reader } = await direct.createKey([tenant], ['voc:recordings.read']);
    const created = await create(tenant, key);
    expect(created.status).toBe(201);
    await revokeKey(direct.keys, keyId);
    expect((await send(created.json as unknown as Upload)).status).toBe(200);
    expect(await ended(tenant, reader, (created.json as unknown as Upload).jobId)).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(
        new RegExp(
          `^The API key ${keyId} that created this upload was revoked at .*, before its file arrived, so the file is refused\\.`,
        ),
      ),
    });
  });
});
