/**
 * The recording job runner against DynamoDB Local, with the analysis and the bucket as test
 * doubles: the paths the HTTP suites cannot reach locally, chiefly the one Amazon Transcribe takes
 * on a stage (start -> pending -> "Call Analytics Job State Change" -> collect -> row -> completed),
 * its retries per event, and a completion that loses to an overdue verdict.
 */

import { PassThrough } from 'node:stream';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { tinyWav } from '#infra/cli/tiny-wav';
import { useLocalDynamo } from '#infra/local/use-local-dynamo';
import { analysisJobName } from '#shared/analysis/call-analytics-analysis';
import type { AnalysisOutcome } from '#shared/analysis/recording-analysis';
import { createRecordingJobRunner } from '#shared/analysis/run-recording-job';
import { newUlid } from '#shared/domain/ids/new-ulid';
import { recordingKey } from '#shared/domain/voc/recording-upload';
import { documentClient } from '#shared/store/dynamo-client';
import type { RecordingsBucket } from '#shared/store/recordings-bucket';
import { rowKey } from '#shared/store/reporting-keys';
import { createReportingRowsStore } from '#shared/store/reporting-rows-store';
import { createVocJobsStore } from '#shared/store/voc-jobs-store';
import { uniqueTenant } from '#test/support/test-api';

const BUCKET = 'cxm-test-recordings';
const tenant = uniqueTenant('runner');
const wav = tinyWav(1);
let tables: ReturnType<typeof inject<'dynamo'>>['tables'];

beforeAll(() => {
  const dynamo = inject('dynamo');
  useLocalDynamo(dynamo, dynamo.tables);
  tables = dynamo.tables;
});

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const bucket: RecordingsBucket = {
  open: async () => ({ size: wav.length, body: new PassThrough().end(wav) }),
};

function runner(collect: (tenantId: string, jobId: string) => Promise<AnalysisOutcome>) {
  const client = documentClient();
  const jobs = createVocJobsStore(client, tables.vocJobs);
  const rows = createReportingRowsStore(client, { rows: tables.reporting, counts: tables.reportingCounts });
  const started: string[] = [];
  const run = createRecordingJobRunner({
    stage: 'test',
    bucketName: BUCKET,
    bucket,
    jobs,
    rows,
    analysis: {
      start: async ({ jobId }) => {
        started.push(jobId);
        return { kind: 'pending' };
      },
    },
    callAnalytics: { collect },
    logger: silent,
  });
  return { run, jobs, started };
}

async function uploadedJob(jobs: ReturnType<typeof runner>['jobs'], run: ReturnType<typeof runner>['run']) {
  const id = newUlid(Date.now());
  const file = recordingKey(tenant, id, 'audio/wav');
  await jobs.create(tenant, {
    id,
    status: 'started',
    started: Date.now(),
    file,
    recordingId: `rec-${id}`,
    upload: { contentType: 'audio/wav', sizeBytes: wav.length, fileName: 'a.wav', uploadExpiresAt: Date.now() + 60_000 },
  });
  await run.onRecordingArrived(`s3-${id}`, { bucket: { name: BUCKET }, object: { key: file, size: wav.length } });
  return id;
}

async function row(id: string) {
  const { Item } = await documentClient().send(new GetCommand({ TableName: tables.reporting, Key: { pk: rowKey(tenant, 'voc', `rec-${id}`) } }));
  return Item ? (JSON.parse(String(Item.row)) as Record<string, unknown>) : undefined;
}

const finished = (jobName: string, status = 'COMPLETED') => ({ JobName: jobName, JobStatus: status });

describe('the analysis that reports back (Amazon Transcribe on a stage)', () => {
  it('starts the analysis and waits; its completion writes the row and completes the job; a repeat of the event changes nothing', async () => {
    const { run, jobs, started } = runner(async () => ({ kind: 'done', fields: { Duration: 42.46, Summary: 'Cancelled, then kept with a discount.', Media: 'voice' } }));
    const id = await uploadedJob(jobs, run);
    expect(started).toEqual([id]);
    expect((await jobs.get(tenant, id))?.status).toBe('started');
    await run.onAnalysisStateChanged('tr-1', finished(analysisJobName('test', tenant, id)));
    expect((await jobs.get(tenant, id))?.status).toBe('completed');
    expect(await row(id)).toMatchObject({ ID: `rec-${id}`, TenantID: tenant, Duration: 42.46, Summary: 'Cancelled, then kept with a discount.', SourceSystem: 'cxm-upload' });
    await run.onAnalysisStateChanged('tr-1', finished(analysisJobName('test', tenant, id)));
    expect((await jobs.get(tenant, id))?.status).toBe('completed');
  });

  it('a failed analysis fails the job with its reason, and writes no row', async () => {
    const { run, jobs } = runner(async () => ({ kind: 'failed', reason: 'The analysis failed: no speech found.' }));
    const id = await uploadedJob(jobs, run);
    await run.onAnalysisStateChanged('tr-2', finished(analysisJobName('test', tenant, id), 'FAILED'));
    expect(await jobs.get(tenant, id)).toMatchObject({ status: 'failed', failureReason: 'The analysis failed: no speech found.' });
    expect(await row(id)).toBeUndefined();
  });

  it('an error reading the result is retried with the event, and its third attempt fails the job', async () => {
    const { run, jobs } = runner(() => Promise.reject(Object.assign(new Error('slow down'), { name: 'ThrottlingException' })));
    const id = await uploadedJob(jobs, run);
    const event = finished(analysisJobName('test', tenant, id));
    await expect(run.onAnalysisStateChanged('tr-3', event)).rejects.toThrow('slow down');
    await expect(run.onAnalysisStateChanged('tr-3', event)).rejects.toThrow('slow down');
    await run.onAnalysisStateChanged('tr-3', event);
    expect(await jobs.get(tenant, id)).toMatchObject({ status: 'failed', failureReason: expect.stringMatching(/^Processing failed after 3 attempts \(ThrottlingException\)/) });
  });

  it("ignores another stage's or a foreign job name", async () => {
    const { run, jobs } = runner(() => Promise.reject(new Error('must not be called')));
    const id = await uploadedJob(jobs, run);
    await run.onAnalysisStateChanged('tr-4', finished(analysisJobName('prod', tenant, id)));
    await run.onAnalysisStateChanged('tr-5', finished('somebody-elses-job'));
    expect((await jobs.get(tenant, id))?.status).toBe('started');
  });

  it('a completion that loses to an overdue verdict takes its row back: a failed job has no row', async () => {
    let runnerJobs: ReturnType<typeof runner>['jobs'] | undefined;
    const { run, jobs } = runner(async (tenantId, jobId) => {
      // The status read fails the job while the analysis result is being turned into a row.
      await runnerJobs!.finish(tenantId, jobId, 'failed', 'Processing did not finish within 120 minutes of the upload, retries included.');
      return { kind: 'done', fields: { Duration: 1 } };
    });
    runnerJobs = jobs;
    const id = await uploadedJob(jobs, run);
    await run.onAnalysisStateChanged('tr-6', finished(analysisJobName('test', tenant, id)));
    expect((await jobs.get(tenant, id))?.status).toBe('failed');
    expect(await row(id)).toBeUndefined();
  });
});
