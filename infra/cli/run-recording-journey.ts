/**
 * The VOC recording path end to end, as `cxm smoke` proves it in its own smoke tenant: create an
 * upload for a tiny generated WAV, PUT it to the presigned URL with the answered headers, poll the
 * job until it leaves `started`, and find its row in the VOC list. One result row in the report.
 */
import { fillPath, routeById } from '#shared/routes';
import type { CheckResult, SmokeTarget } from './run-smoke-checks.ts';
import { tinyWav } from './tiny-wav.ts';

interface UploadAnswer {
  jobId: string;
  upload: { method: string; url: string; headers: Record<string, string> };
}

const POLL_MS = 1000;

export async function runRecordingJourney(target: SmokeTarget, runId: string, settleMs: number): Promise<CheckResult> {
  const path = fillPath(routeById('createRecording'), { tenantId: target.tenant });
  const row = { name: 'VOC recording end to end', route: 'createRecording' as const, method: 'POST', path };
  const started = performance.now();
  const finish = (status: number | null, reason: string | null): CheckResult => ({
    ...row,
    status,
    ms: Math.round(performance.now() - started),
    result: reason === null ? 'pass' : 'fail',
    reason,
  });
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(url.startsWith('http') ? url : `${target.baseUrl}${url}`, {
      method,
      headers: { Authorization: `Bearer ${target.key}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(target.timeoutMs),
    });
    return { status: response.status, json: (await response.json().catch(() => undefined)) as unknown };
  };
  try {
    const wav = tinyWav(2);
    const created = await call('POST', path, { fileName: `cxm-smoke-${runId}.wav`, contentType: 'audio/wav', sizeBytes: wav.length });
    if (created.status !== 201) return finish(created.status, `the upload was not created (${created.status})`);
    const { jobId, upload } = created.json as UploadAnswer;
    const put = await fetch(upload.url, { method: upload.method, body: wav, headers: { 'Content-Type': upload.headers['Content-Type']! }, signal: AbortSignal.timeout(target.timeoutMs) });
    if (!put.ok) return finish(put.status, `storage refused the upload (${put.status}): ${(await put.text()).slice(0, 160)}`);
    const statusPath = fillPath(routeById('getVocJobStatus'), { tenantId: target.tenant, jobId });
    const deadline = Date.now() + settleMs;
    let job: { status?: string; recordingId?: string; failureReason?: string } = {};
    while (Date.now() < deadline) {
      const answer = await call('GET', statusPath);
      job = answer.json as typeof job;
      if (answer.status !== 200 || job.status !== 'started') break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (job.status === 'started') return finish(200, `job ${jobId} still started after ${settleMs / 1000} s: is the processor receiving the bucket's events?`);
    if (job.status !== 'completed') return finish(200, `job ${jobId} ${job.status ?? 'unreadable'}: ${job.failureReason ?? 'no reason given'}`);
    const list = await call('GET', `${fillPath(routeById('listVocConversations'), { tenantId: target.tenant })}?range=last_day&limit=5000`);
    const rows = (list.json as { data?: { ID?: string }[] } | undefined)?.data ?? [];
    if (!rows.some((candidate) => candidate.ID === job.recordingId)) return finish(list.status, `job ${jobId} completed but its row ${job.recordingId} is not in the VOC list`);
    return finish(200, null);
  } catch (error) {
    return finish(null, error instanceof Error ? error.message : String(error));
  }
}
