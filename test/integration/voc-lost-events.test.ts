/**
 * Amazon Transcribe's events reach EventBridge "on a best-effort basis": one can be lost. Here the
 * local bus loses every one of them, and the processor's sweep (its scheduled
 * rule, run every second here instead of every 5 minutes) still collects each analysis and
 * completes its job, mono and two-channel alike. Without the sweep these jobs would stay `started`
 * until the status read failed them at their window, although their analysis had finished.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_CALL, sampleCall } from '#infra/cli/recordings/sample-call';
import { tinyWav } from '#infra/cli/recordings/tiny-wav';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { type BoundGateway, bindGateway } from '#infra/local/serve-gateway';
import { fillPath, routeById } from '#shared/api/route-table';
import { directStores } from '#test/support/serve-gateway-over';
import { documentedFetch, uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

let gateway: BoundGateway;
let direct: ReturnType<typeof directStores>;
let key: string;
const tenant = uniqueTenant('lost');
const lost: string[] = [];

beforeAll(async () => {
  const { endpoint, credentials, tables } = workerDynamo();
  pointAtLocalDynamo({ endpoint, credentials }, tables);
  gateway = await bindGateway(0);
  await gateway.serve({
    authCacheTtlSeconds: 0,
    scheduleEverySeconds: 1,
    losesEvents: (event) => {
      const { source, 'detail-type': detailType } = event as { source?: string; 'detail-type'?: string };
      if (source !== 'aws.transcribe') return false;
      lost.push(String(detailType));
      return true;
    },
  });
  direct = directStores({ endpoint, credentials }, tables);
  ({ key } = await direct.createKey([tenant], ['voc:*']));
});

afterAll(async () => {
  await gateway?.close();
  direct?.destroy();
});

async function api(method: string, path: string, body?: unknown) {
  const response = await documentedFetch(`${gateway.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** Uploads `file` and polls its job as a client would, until it leaves `started`. */
async function upload(file: Buffer, contentType: string) {
  const created = await api('POST', fillPath(routeById('createRecording'), { tenantId: tenant }), {
    fileName: 'call',
    contentType,
    sizeBytes: file.length,
  });
  expect(created.status).toBe(201);
  const { jobId, upload: target } = created.json as { jobId: string; upload: { url: string } };
  expect(
    (
      await fetch(target.url, {
        method: 'PUT',
        body: file,
        headers: { 'Content-Type': contentType, 'If-None-Match': '*' },
      })
    ).status,
  ).toBe(200);
  for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
    const job = await api('GET', fillPath(routeById('getVocJobStatus'), { tenantId: tenant, jobId }));
    if (job.json.status !== 'started') return job.json;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`job ${jobId} still started`);
}

describe('a lost state change of the analysis', () => {
  it('a mono recording: its transcription is collected by the sweep, and the job completes', async () => {
    const before = lost.length;
    expect(await upload(tinyWav(1), 'audio/wav')).toMatchObject({ status: 'completed', analysis: 'transcription' });
    expect(lost.slice(before)).toEqual(['Transcribe Job State Change']);
  });

  it('a two-channel call: its Call Analytics job is collected by the sweep, and the job completes', async () => {
    const before = lost.length;
    expect(await upload(sampleCall(), SAMPLE_CALL.contentType)).toMatchObject({
      status: 'completed',
      analysis: 'call-analytics',
    });
    expect(lost.slice(before)).toEqual(['Call Analytics Job State Change']);
  });
});
