/** Endpoint 9 and the VOC job status rules through the local gateway, and the job store's transition rule. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatorFor } from '#shared/http/validator-for';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('voc');
let key: string;
const started = Date.parse('2026-06-01T08:00:00Z');

beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.createKey([tenant], ['voc:recordings.read']));
  await api.vocJobs.put(tenant, {
    id: 'job-1',
    status: 'started',
    started,
    file: 'recordings/t/1.wav',
    recordingId: 'rec-1',
  });
});
afterAll(() => api.close());

const statusPath = (jobId: string, t = tenant) => `/api/v1/voc/tenants/${t}/recording/${jobId}/status`;

describe('GET VOC job status', () => {
  it('answers the five fields, started in epoch milliseconds', async () => {
    const response = await api.call('GET', statusPath('job-1'), key);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      id: 'job-1',
      status: 'started',
      started,
      file: 'recordings/t/1.wav',
      recordingId: 'rec-1',
    });
    expect(validatorFor('VocJobStatus')(response.json)).toBe(true);
  });

  it('follows the job to its final status', async () => {
    await api.vocJobs.put(tenant, { id: 'job-poll', status: 'started', started, file: 'f', recordingId: 'r' });
    expect(((await api.call('GET', statusPath('job-poll'), key)).json as { status: string }).status).toBe('started');
    expect(await api.vocJobs.finish(tenant, { id: 'job-poll' }, 'completed')).toBe('done');
    expect(((await api.call('GET', statusPath('job-poll'), key)).json as { status: string }).status).toBe('completed');
  });

  it("is 404 for an unknown job and for another tenant's job of the same id", async () => {
    const other = uniqueTenant('voc-other');
    await api.vocJobs.put(other, { id: 'theirs', status: 'completed', started, file: 'f', recordingId: 'r' });
    for (const jobId of ['nope', 'theirs']) {
      const response = await api.call('GET', statusPath(jobId), key);
      expect(response.status).toBe(404);
      expect((response.json as { code: string }).code).toBe('NotFound');
    }
  });

  it.each([['a%2Fb'], ['j'.repeat(513)]])('refuses the jobId %s with 400', async (jobId) => {
    expect((await api.call('GET', statusPath(jobId), key)).status).toBe(400);
  });

  it("is 403 on another tenant's path", async () => {
    expect((await api.call('GET', statusPath('job-1', uniqueTenant('x')), key)).status).toBe(403);
  });

  it.each([
    ['voc:recordings.read', 200],
    ['voc:recordings.*', 200],
    ['voc:read', 200],
    ['voc:*', 200],
    ['voc:recordings.write', 403],
    ['reporting:*', 403],
  ] as const)('%s: %i', async (scope, status) => {
    const { key: k } = await api.createKey([tenant], [scope]);
    expect((await api.call('GET', statusPath('job-1'), k)).status).toBe(status);
  });
});

describe('job transitions', () => {
  it('allows started -> completed and started -> failed, and nothing after', async () => {
    for (const final of ['completed', 'failed'] as const) {
      const id = `t-${final}`;
      await api.vocJobs.put(tenant, { id, status: 'started', started, file: 'f', recordingId: 'r' });
      expect(await api.vocJobs.finish(tenant, { id }, final)).toBe('done');
      expect(await api.vocJobs.finish(tenant, { id }, final === 'completed' ? 'failed' : 'completed')).toBe(
        'not-started',
      );
      expect((await api.vocJobs.get(tenant, id))?.status).toBe(final);
    }
    expect(await api.vocJobs.finish(tenant, { id: 'never-existed' }, 'completed')).toBe('not-found');
  });

  it('lets exactly one of racing transitions win', async () => {
    await api.vocJobs.put(tenant, { id: 'race', status: 'started', started, file: 'f', recordingId: 'r' });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api.vocJobs.finish(tenant, { id: 'race' }, i % 2 ? 'completed' : 'failed')),
    );
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'not-started')).toHaveLength(9);
  });
});

describe('processing attempts and overdue verdicts', () => {
  const upload = { contentType: 'audio/wav', sizeBytes: 44, fileName: 'a.wav', uploadExpiresAt: started + 60_000 };

  it('counts attempts per event: a retry of the same event adds one, a new event (a duplicate delivery) starts again at 1', async () => {
    await api.vocJobs.create(
      tenant,
      { id: 'attempts-2', status: 'started', started, file: 'f', recordingId: 'r', upload },
      { inFlightLimit: 100 },
    );
    const attempt = async (event: string) => {
      const outcome = await api.vocJobs.beginAttempt(tenant, 'attempts-2', event, started + 1000);
      return outcome.kind === 'attempt' ? outcome.attempt : outcome.kind;
    };
    expect([
      await attempt('e1'),
      await attempt('e1'),
      await attempt('e2'),
      await attempt('e1'),
      await attempt('e1'),
    ]).toEqual([1, 2, 1, 1, 2]);
    expect((await api.vocJobs.get(tenant, 'attempts-2'))?.upload).toMatchObject({
      uploadedAt: started + 1000,
      attempts: 2,
      attemptEvent: 'e1',
    });
    expect(await api.vocJobs.finish(tenant, { id: 'attempts-2' }, 'completed')).toBe('done');
    expect(await attempt('e3')).toBe('not-started');
    expect(await api.vocJobs.beginAttempt(tenant, 'no-such-job', 'e1', started)).toEqual({ kind: 'not-found' });
  });

  it("with a file, counts nothing unless it is the job's own upload", async () => {
    await api.vocJobs.create(
      tenant,
      { id: 'own-file', status: 'started', started, file: 'recordings/t/own-file.wav', recordingId: 'r', upload },
      { inFlightLimit: 100 },
    );
    await api.vocJobs.put(tenant, {
      id: 'imported',
      status: 'started',
      started,
      file: 'recordings/t/imported.wav',
      recordingId: 'r',
    });
    expect((await api.vocJobs.beginAttempt(tenant, 'own-file', 'e1', started, 'recordings/t/other.wav')).kind).toBe(
      'other-file',
    );
    expect((await api.vocJobs.beginAttempt(tenant, 'imported', 'e1', started, 'recordings/t/imported.wav')).kind).toBe(
      'other-file',
    );
    expect((await api.vocJobs.get(tenant, 'own-file'))?.upload?.uploadedAt).toBeUndefined();
    expect(
      await api.vocJobs.beginAttempt(tenant, 'own-file', 'e1', started, 'recordings/t/own-file.wav'),
    ).toMatchObject({ kind: 'attempt', attempt: 1 });
  });

  it('an overdue verdict holds only while the file is as it saw it: a file that arrived meanwhile keeps the job', async () => {
    await api.vocJobs.create(
      tenant,
      { id: 'overdue', status: 'started', started, file: 'f', recordingId: 'r', upload },
      { inFlightLimit: 100 },
    );
    // The verdict saw no upload; the file's event begins processing before the verdict is written.
    await api.vocJobs.beginAttempt(tenant, 'overdue', 'e1', started + 2000);
    const overdue = (await api.vocJobs.get(tenant, 'overdue'))!;
    expect(
      await api.vocJobs.finish(tenant, overdue, 'failed', { reason: 'never came', basis: { uploadedAt: undefined } }),
    ).toBe('not-started');
    expect((await api.vocJobs.get(tenant, 'overdue'))?.status).toBe('started');
    // A verdict on the processing window, seeing this very arrival, does fail it.
    expect(
      await api.vocJobs.finish(tenant, overdue, 'failed', {
        reason: 'too slow',
        basis: { uploadedAt: started + 2000 },
      }),
    ).toBe('done');
    expect(await api.vocJobs.get(tenant, 'overdue')).toMatchObject({ status: 'failed', failureReason: 'too slow' });
  });
});

describe("a tenant's recordings in flight", () => {
  const upload = { contentType: 'audio/wav', sizeBytes: 44, fileName: 'a.wav', uploadExpiresAt: started + 60_000 };
  const job = (id: string) => ({
    id,
    status: 'started' as const,
    started,
    file: `recordings/t/${id}.wav`,
    recordingId: `rec-${id}`,
    upload,
  });

  it('are counted by the jobs created; past the limit a create writes nothing; a finished job frees its place, once', async () => {
    const t = uniqueTenant('in-flight');
    expect((await api.vocJobs.create(t, job('a'), { inFlightLimit: 2 })).kind).toBe('created');
    expect((await api.vocJobs.create(t, job('b'), { inFlightLimit: 2 })).kind).toBe('created');
    expect(await api.vocJobs.create(t, job('c'), { inFlightLimit: 2 })).toEqual({ kind: 'busy', limit: 2 });
    expect(await api.vocJobs.get(t, 'c')).toBeUndefined();
    expect(await api.vocJobs.inFlight(t)).toBe(2);
    const a = (await api.vocJobs.get(t, 'a'))!;
    // Racing transitions: one wins, and the count drops by one.
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api.vocJobs.finish(t, a, i % 2 ? 'completed' : 'failed')),
    );
    expect(outcomes.filter((outcome) => outcome === 'done')).toHaveLength(1);
    expect(await api.vocJobs.inFlight(t)).toBe(1);
    expect((await api.vocJobs.create(t, job('c'), { inFlightLimit: 2 })).kind).toBe('created');
    // Another tenant's count is its own.
    expect(await api.vocJobs.inFlight(uniqueTenant('in-flight-other'))).toBe(0);
  });

  it('an open job is listed for the sweep until it finishes; an imported one never is', async () => {
    const t = uniqueTenant('open');
    await api.vocJobs.create(t, job('open-1'), { inFlightLimit: 10 });
    await api.vocJobs.put(t, { id: 'imported', status: 'started', started, file: 'f', recordingId: 'r' });
    const listed = async () =>
      (await api.vocJobs.openJobs(Date.now() + 1, 100_000))
        .filter((entry) => entry.tenantId === t)
        .map((entry) => entry.jobId);
    expect(await listed()).toEqual(['open-1']);
    await api.vocJobs.finish(t, (await api.vocJobs.get(t, 'open-1'))!, 'failed', { reason: 'r' });
    expect(await listed()).toEqual([]);
  });
});
