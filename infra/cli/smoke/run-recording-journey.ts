/**
 * The VOC recording path end to end, as `cxm smoke` proves it in its own smoke tenant, once for
 * each analysis a recording can take: the sample call (two channels: Call Analytics) and a mono
 * tone (a transcription job). Each creates an upload, PUTs the file to the presigned URL with the
 * answered headers, polls the job until it leaves `started`, checks that it took the analysis its
 * channels call for, and finds its row in the VOC list. One result row each, naming the analysis.
 */

import { fillPath, routeById } from '#shared/api/route-table';
import type { AnalysisKind } from '#shared/domain/voc/analysis-kind';
import { SAMPLE_CALL, sampleCall } from '../recordings/sample-call.ts';
import { tinyWav } from '../recordings/tiny-wav.ts';
import type { CheckResult, SmokeTarget } from './run-smoke-checks.ts';

interface UploadAnswer {
  jobId: string;
  upload: { method: string; url: string; headers: Record<string, string> };
}

/** A recording the smoke run uploads, and the analysis it must take. */
export interface SmokeRecording {
  name: string;
  file: () => Buffer;
  contentType: string;
  extension: string;
  analysis: AnalysisKind;
}

export const SMOKE_RECORDINGS: readonly SmokeRecording[] = [
  {
    name: 'VOC call, two channels',
    file: sampleCall,
    contentType: SAMPLE_CALL.contentType,
    extension: 'flac',
    analysis: 'call-analytics',
  },
  {
    name: 'VOC call, mono',
    file: () => tinyWav(2),
    contentType: 'audio/wav',
    extension: 'wav',
    analysis: 'transcription',
  },
];

const POLL_MS = 1000;

export async function runRecordingJourney(
  target: SmokeTarget,
  runId: string,
  settleMs: number,
  recording: SmokeRecording,
): Promise<CheckResult> {
  const path = fillPath(routeById('createRecording'), { tenantId: target.tenant });
  const row = { name: recording.name, route: 'createRecording' as const, method: 'POST', path };
  const started = performance.now();
  const finish = (status: number | null, reason: string | null, detail: string | null = null): CheckResult => ({
    ...row,
    status,
    ms: Math.round(performance.now() - started),
    result: reason === null ? 'pass' : 'fail',
    reason,
    detail,
  });
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(url.startsWith('http') ? url : `${target.baseUrl}${url}`, {
      method,
      headers: {
        Authorization: `Bearer ${target.key}`,
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(target.timeoutMs),
    });
    return { status: response.status, json: (await response.json().catch(() => undefined)) as unknown };
  };
  try {
    const file = recording.file();
    const created = await call('POST', path, {
      fileName: `cxm-smoke-${runId}.${recording.extension}`,
      contentType: recording.contentType,
      sizeBytes: file.length,
    });
    if (created.status !== 201) return finish(created.status, `the upload was not created (${created.status})`);
    const { jobId, upload } = created.json as UploadAnswer;
    // Exactly the answered headers, as a client must (fetch sets Content-Length from the body).
    const { 'Content-Length': _length, ...headers } = upload.headers;
    const put = await fetch(upload.url, {
      method: upload.method,
      body: file,
      headers,
      signal: AbortSignal.timeout(target.timeoutMs),
    });
    if (!put.ok)
      return finish(put.status, `storage refused the upload (${put.status}): ${(await put.text()).slice(0, 160)}`);
    const statusPath = fillPath(routeById('getVocJobStatus'), { tenantId: target.tenant, jobId });
    const deadline = Date.now() + settleMs;
    let job: { status?: string; recordingId?: string; failureReason?: string; analysis?: string } = {};
    while (Date.now() < deadline) {
      const answer = await call('GET', statusPath);
      job = answer.json as typeof job;
      if (answer.status !== 200 || job.status !== 'started') break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const took = job.analysis ?? 'no analysis';
    if (job.status === 'started') {
      return finish(
        200,
        `job ${jobId} still started after ${settleMs / 1000} s (${took}): is the processor receiving the bucket's and Transcribe's events?`,
        took,
      );
    }
    if (job.status !== 'completed')
      return finish(
        200,
        `job ${jobId} ${job.status ?? 'unreadable'} (${took}): ${job.failureReason ?? 'no reason given'}`,
        took,
      );
    if (job.analysis !== recording.analysis)
      return finish(200, `job ${jobId} was analysed by ${took}, not ${recording.analysis}`, took);
    // On an OpenSearch stage the row is listed a moment after the job ends (once the indexer has
    // had it from the table's stream): looked for until the settling time is up.
    const listPath = `${fillPath(routeById('listVocConversations'), { tenantId: target.tenant })}?range=last_day&limit=5000`;
    let list: Awaited<ReturnType<typeof call>>;
    for (;;) {
      list = await call('GET', listPath);
      const rows = (list.json as { data?: { ID?: string }[] } | undefined)?.data ?? [];
      if (rows.some((candidate) => candidate.ID === job.recordingId)) break;
      if (list.status !== 200 || Date.now() >= deadline)
        return finish(
          list.status,
          `job ${jobId} completed but its row ${job.recordingId} is not in the VOC list`,
          took,
        );
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return finish(200, null, took);
  } catch (error) {
    return finish(null, error instanceof Error ? error.message : String(error));
  }
}
