/**
 * The recording job runner against DynamoDB Local, with the analysis and the bucket as test
 * doubles: the choice of analysis by channels (and the refusals before any is submitted), the
 * path Amazon Transcribe takes (start -> pending -> state change -> collect -> row -> completed),
 * its retries per event, the sweep that collects an analysis whose event was lost and gives up on
 * one past its window, and a completion that loses to an overdue verdict.
 */

import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { tinyWav } from '#infra/cli/recordings/tiny-wav';
import { createTables, startDynamoDbLocal } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { AWS_CALL_LOG_ENV, actingAs, startRecordingAwsCalls } from '#infra/local/emulators/record-aws-calls';
import type { AnalysisOutcome, AnalysisRequest } from '#shared/analysis/recording-analysis';
import { createRecordingJobRunner } from '#shared/analysis/run-recording-job';
import { issueKey } from '#shared/auth/issue-key';
import { revokeKey } from '#shared/auth/revoke-key';
import { newUlid } from '#shared/domain/ids/new-ulid';
import { analysisJobName } from '#shared/domain/voc/analysis-job-names';
import type { AnalysisKind } from '#shared/domain/voc/analysis-kind';
import { recordingKey } from '#shared/domain/voc/recording-upload';
import { RECORDING_PROCESSOR } from '#shared/recording-events';
import { createTableInput } from '#shared/store/create-table-input';
import { documentClient } from '#shared/store/dynamo-client';
import { createKeysStore } from '#shared/store/keys-store';
import type { RecordingsBucket } from '#shared/store/recordings-bucket';
import { rowKey } from '#shared/store/reporting-keys';
import { physicalTableName, tableSpecs } from '#shared/store/table-specs';
import { bindTableStores } from '#shared/store/table-stores';
import { createVocJobsStore } from '#shared/store/voc-jobs-store';
import { uniqueTenant } from '#test/support/test-api';
import { TEST_KEY_TAG_SECRET } from '#test/support/test-env';
import { workerDynamo } from '#test/support/worker-dynamo';

const BUCKET = 'cxm-test-recordings';
const tenant = uniqueTenant('runner');
const wav = tinyWav(1);
let tables: ReturnType<typeof workerDynamo>['tables'];

beforeAll(async () => {
  const dynamo = workerDynamo();
  pointAtLocalDynamo(dynamo, dynamo.tables);
  // No gateway here to start recording, as a sources runtime does.
  const callLog = process.env[AWS_CALL_LOG_ENV];
  if (callLog) startRecordingAwsCalls(callLog);
  // A jobs table of this file's own: its sweeps list every analysis under way in the table, and
  // must not settle (with this file's test doubles) the jobs of files running beside it.
  const vocJobs = physicalTableName(`runner${randomUUID().slice(0, 8)}`, 'vocJobs');
  await documentClient().send(new CreateTableCommand(createTableInput(tableSpecs.vocJobs, vocJobs)));
  tables = { ...dynamo.tables, vocJobs };
});

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const bucketOf = (file: Buffer): RecordingsBucket => ({
  open: async () => ({ size: file.length, body: new PassThrough().end(file) }),
});
const WINDOW_MS = 7_200_000;

type Collect = (tenantId: string, jobId: string, kind: AnalysisKind, audioSeconds?: number) => Promise<AnalysisOutcome>;

function runner(collect: Collect, file = wav, maxRecordingSeconds = 7200) {
  const { vocJobs: jobs, reportingRows: rows, keys } = bindTableStores(documentClient(), tables);
  const started: AnalysisRequest[] = [];
  const runner = createRecordingJobRunner({
    stage: 'test',
    bucketName: BUCKET,
    bucket: bucketOf(file),
    jobs,
    rows,
    analysis: {
      start: async (request) => {
        started.push(request);
        return { kind: 'pending' };
      },
      collect,
    },
    keys,
    deadlines: { uploadGraceMs: 0, processingWindowMs: WINDOW_MS },
    maxRecordingSeconds,
    logger: silent,
  });
  // The processor's use case, its store calls recorded as the processor's (the IAM simulation):
  // the paths here (a row taken back, the sweep) are ones the HTTP suites seldom reach.
  const run: typeof runner = {
    onRecordingArrived: (...args) => actingAs(RECORDING_PROCESSOR.id, () => runner.onRecordingArrived(...args)),
    onAnalysisStateChanged: (...args) => actingAs(RECORDING_PROCESSOR.id, () => runner.onAnalysisStateChanged(...args)),
    sweepJobs: (...args) => actingAs(RECORDING_PROCESSOR.id, () => runner.sweepJobs(...args)),
  };
  return { run, jobs, started, file };
}

/** A job whose upload was created (by `keyId`, when given), and whose file then arrives. */
async function uploadedJob(
  { jobs, run, file }: Pick<ReturnType<typeof runner>, 'jobs' | 'run' | 'file'>,
  keyId?: string,
) {
  const id = newUlid(Date.now());
  const key = recordingKey(tenant, id, 'audio/wav');
  await jobs.create(
    tenant,
    {
      id,
      status: 'started',
      started: Date.now(),
      file: key,
      recordingId: `rec-${id}`,
      upload: {
        contentType: 'audio/wav',
        sizeBytes: file.length,
        fileName: 'a.wav',
        uploadExpiresAt: Date.now() + 60_000,
        ...(keyId && { keyId }),
      },
    },
    { inFlightLimit: 10_000 },
  );
  await run.onRecordingArrived(`s3-${id}`, { bucket: { name: BUCKET }, object: { key, size: file.length } });
  return id;
}

async function row(id: string) {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: tables.reporting, Key: { pk: rowKey(tenant, 'voc', `rec-${id}`) } }),
  );
  return Item ? (JSON.parse(String(Item.row)) as Record<string, unknown>) : undefined;
}

const ended = (id: string, stage = 'test') => analysisJobName(stage, tenant, id);

describe('the analysis a recording gets, chosen before any is submitted', () => {
  it('a two-channel call goes to Call Analytics, a mono one to a transcription, each noted on the job', async () => {
    const collect: Collect = () => Promise.reject(new Error('not asked'));
    const stereo = runner(collect, tinyWav(1, { channels: 2 }));
    const stereoId = await uploadedJob(stereo);
    expect(stereo.started.map((request) => request.kind)).toEqual(['call-analytics']);
    expect(await stereo.jobs.get(tenant, stereoId)).toMatchObject({
      status: 'started',
      analysis: 'call-analytics',
      upload: { audioSeconds: 1, analysisSubmittedAt: expect.any(Number) },
    });
    const mono = runner(collect);
    const monoId = await uploadedJob(mono);
    expect(mono.started.map((request) => request.kind)).toEqual(['transcription']);
    expect((await mono.jobs.get(tenant, monoId))?.analysis).toBe('transcription');
  });

  it('three channels, or a sample rate Transcribe does not take, fail the job with what to do, and nothing is submitted', async () => {
    const collect: Collect = () => Promise.reject(new Error('not asked'));
    const surround = runner(collect, tinyWav(1, { channels: 3 }));
    const surroundId = await uploadedJob(surround);
    expect(surround.started).toEqual([]);
    expect(await surround.jobs.get(tenant, surroundId)).toMatchObject({
      status: 'failed',
      failureReason: expect.stringContaining('The recording has 3 channels; the analysis takes mono audio'),
    });
    const muffled = runner(collect, tinyWav(1, { sampleRate: 4000 }));
    const muffledId = await uploadedJob(muffled);
    expect(muffled.started).toEqual([]);
    expect((await muffled.jobs.get(tenant, muffledId))?.failureReason).toBe(
      'The recording is sampled at 4000 Hz; the analysis takes 8000 to 48000 Hz. Resample it and upload it again.',
    );
  });
});

describe('the analysis that reports back (Amazon Transcribe)', () => {
  it('starts the analysis and waits; its completion writes the row and completes the job; a repeat of the event changes nothing', async () => {
    const asked: unknown[][] = [];
    const setup = runner(async (...args) => {
      asked.push(args);
      return {
        kind: 'done',
        fields: { Duration: 42.46, Summary: 'Cancelled, then kept with a discount.', Media: 'voice' },
      };
    });
    const id = await uploadedJob(setup);
    expect(setup.started.map((request) => request.jobId)).toEqual([id]);
    expect((await setup.jobs.get(tenant, id))?.status).toBe('started');
    await setup.run.onAnalysisStateChanged('tr-1', 'transcription', ended(id));
    expect(asked).toEqual([[tenant, id, 'transcription', 1]]);
    expect(await setup.jobs.get(tenant, id)).toMatchObject({ status: 'completed', analysis: 'transcription' });
    expect(await row(id)).toMatchObject({
      ID: `rec-${id}`,
      TenantID: tenant,
      Duration: 42.46,
      Summary: 'Cancelled, then kept with a discount.',
      SourceSystem: 'cxm-upload',
    });
    await setup.run.onAnalysisStateChanged('tr-1', 'transcription', ended(id));
    expect((await setup.jobs.get(tenant, id))?.status).toBe('completed');
  });

  it('a failed analysis fails the job with its reason, and writes no row', async () => {
    const setup = runner(async () => ({ kind: 'failed', reason: 'The analysis failed: no speech found.' }));
    const id = await uploadedJob(setup);
    await setup.run.onAnalysisStateChanged('tr-2', 'transcription', ended(id));
    expect(await setup.jobs.get(tenant, id)).toMatchObject({
      status: 'failed',
      failureReason: 'The analysis failed: no speech found.',
    });
    expect(await row(id)).toBeUndefined();
  });

  it('an error reading the result is retried with the event, and its third attempt fails the job', async () => {
    const setup = runner(() => Promise.reject(Object.assign(new Error('slow down'), { name: 'ThrottlingException' })));
    const id = await uploadedJob(setup);
    await expect(setup.run.onAnalysisStateChanged('tr-3', 'transcription', ended(id))).rejects.toThrow('slow down');
    await expect(setup.run.onAnalysisStateChanged('tr-3', 'transcription', ended(id))).rejects.toThrow('slow down');
    await setup.run.onAnalysisStateChanged('tr-3', 'transcription', ended(id));
    expect(await setup.jobs.get(tenant, id)).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(/^Processing failed after 3 attempts \(ThrottlingException\)/),
    });
  });

  it("ignores another stage's or a foreign job name", async () => {
    const setup = runner(() => Promise.reject(new Error('must not be called')));
    const id = await uploadedJob(setup);
    await setup.run.onAnalysisStateChanged('tr-4', 'transcription', ended(id, 'prod'));
    await setup.run.onAnalysisStateChanged('tr-5', 'call-analytics', 'somebody-elses-job');
    expect((await setup.jobs.get(tenant, id))?.status).toBe('started');
  });

  it('a completion that loses to an overdue verdict takes its row back: a failed job has no row', async () => {
    let runnerJobs: ReturnType<typeof runner>['jobs'] | undefined;
    const setup = runner(async (tenantId, jobId) => {
      // The job is failed elsewhere while the analysis result is being turned into a row.
      await runnerJobs!.finish(tenantId, (await runnerJobs!.get(tenantId, jobId))!, 'failed', {
        reason: 'Processing did not finish within 120 minutes of the upload, retries included.',
      });
      return { kind: 'done', fields: { Duration: 1 } };
    });
    runnerJobs = setup.jobs;
    const id = await uploadedJob(setup);
    await setup.run.onAnalysisStateChanged('tr-6', 'transcription', ended(id));
    expect((await setup.jobs.get(tenant, id))?.status).toBe('failed');
    expect(await row(id)).toBeUndefined();
  });
});

describe('the key that created the upload', () => {
  it('revoked before the file arrived: the file is refused, saying which key and when; still active: the job goes on', async () => {
    const keys = createKeysStore(documentClient(), tables.keys);
    const revoked = await issueKey(
      keys,
      { tenants: [tenant], scopes: ['voc:*'], name: 'test' },
      { tagSecret: TEST_KEY_TAG_SECRET },
    );
    await revokeKey(keys, revoked.stored.keyId, new Date(Date.now() - 1000));
    const active = await issueKey(
      keys,
      { tenants: [tenant], scopes: ['voc:*'], name: 'test' },
      { tagSecret: TEST_KEY_TAG_SECRET },
    );
    const setup = runner(async () => ({ kind: 'pending' }));
    const refused = await uploadedJob(setup, revoked.stored.keyId);
    expect(setup.started).toEqual([]);
    expect(await setup.jobs.get(tenant, refused)).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(
        new RegExp(
          `^The API key ${revoked.stored.keyId} that created this upload was revoked at .*, before its file arrived, so the file is refused\\.`,
        ),
      ),
    });
    const accepted = await uploadedJob(setup, active.stored.keyId);
    expect(setup.started.map((request) => request.jobId)).toEqual([accepted]);
  });
});

describe('the longest recording', () => {
  it("a file longer than the stage's limit fails before any analysis, saying the limit", async () => {
    const setup = runner(() => Promise.reject(new Error('not asked')), tinyWav(3), 2);
    const id = await uploadedJob(setup);
    expect(setup.started).toEqual([]);
    expect((await setup.jobs.get(tenant, id))?.failureReason).toBe(
      'The recording lasts 3 seconds; this API analyses recordings of at most 2 seconds. Split it and upload the parts.',
    );
  });
});

describe('the sweep: an analysis whose state change never came', () => {
  /** The sweep's view: which of this file's jobs are listed as under way. */
  const listed = async (setup: ReturnType<typeof runner>, ids: string[]) =>
    (await setup.jobs.openJobs(Date.now() + 1, 100_000))
      .filter((job) => job.tenantId === tenant && ids.includes(job.jobId))
      .map((job) => job.jobId);

  it('is collected and completed as its event would have; a finished job leaves the list', async () => {
    const setup = runner(async () => ({ kind: 'done', fields: { Duration: 1, Media: 'voice' } }));
    const id = await uploadedJob(setup);
    expect(await listed(setup, [id])).toEqual([id]);
    await setup.run.sweepJobs(Date.now() + 1);
    expect((await setup.jobs.get(tenant, id))?.status).toBe('completed');
    expect(await row(id)).toMatchObject({ ID: `rec-${id}`, Duration: 1 });
    expect(await listed(setup, [id])).toEqual([]);
  });

  it('an analysis still running is asked about again later, and failed once past its processing window', async () => {
    const setup = runner(async () => ({ kind: 'pending' }));
    const id = await uploadedJob(setup);
    await setup.run.sweepJobs(Date.now() + 1);
    expect((await setup.jobs.get(tenant, id))?.status).toBe('started');
    expect(await listed(setup, [id])).toEqual([id]);
    await setup.run.sweepJobs(Date.now() + WINDOW_MS + 60_000);
    expect(await setup.jobs.get(tenant, id)).toMatchObject({
      status: 'failed',
      failureReason: 'The analysis did not finish within 120 minutes of the upload. Create a new upload to try again.',
    });
    expect(await listed(setup, [id])).toEqual([]);
  });

  it('a job whose file never came is failed by the sweep once overdue, though nobody reads it, and frees its place', async () => {
    const setup = runner(() => Promise.reject(new Error('not asked')));
    const id = newUlid(Date.now());
    await setup.jobs.create(
      tenant,
      {
        id,
        status: 'started',
        started: Date.now(),
        file: recordingKey(tenant, id, 'audio/wav'),
        recordingId: `rec-${id}`,
        upload: { contentType: 'audio/wav', sizeBytes: 44, fileName: 'a.wav', uploadExpiresAt: Date.now() + 60_000 },
      },
      { inFlightLimit: 10_000 },
    );
    const before = await setup.jobs.inFlight(tenant);
    await setup.run.sweepJobs(Date.now() + 1);
    expect((await setup.jobs.get(tenant, id))?.status).toBe('started');
    await setup.run.sweepJobs(Date.now() + 60_001);
    expect(await setup.jobs.get(tenant, id)).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(/^The recording was not uploaded before its upload URL expired/),
    });
    expect(await setup.jobs.inFlight(tenant)).toBe(before - 1);
  });

  it("one job's error is left to the next sweep, the others are settled", async () => {
    let calls = 0;
    const setup = runner(async () => {
      calls++;
      if (calls === 1) throw Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
      return { kind: 'done', fields: { Duration: 1 } };
    });
    const first = await uploadedJob(setup);
    const second = await uploadedJob(setup);
    const outcome = await setup.run.sweepJobs(Date.now() + 1);
    expect(outcome.settled).toBeGreaterThanOrEqual(1);
    const statuses = [(await setup.jobs.get(tenant, first))?.status, (await setup.jobs.get(tenant, second))?.status];
    expect(statuses.sort()).toEqual(['completed', 'started']);
    await setup.run.sweepJobs(Date.now() + 1);
    expect((await setup.jobs.get(tenant, first))?.status).toBe('completed');
    expect((await setup.jobs.get(tenant, second))?.status).toBe('completed');
  });
});

describe('a local data folder from before the index of open jobs and the streams of webhooks', () => {
  it('its tables get the index and the streams when the local runtime starts, as a deploy adds them', async () => {
    // A store of its own, as a start has: on the worker's, busy with the other files' writes, the
    // index sometimes never became active within its minute (six full runs of seventeen).
    const store = await startDynamoDbLocal({});
    onTestFinished(() => store.stop());
    const stage = `upgrade${Date.now().toString(36)}`;
    const name = physicalTableName(stage, 'vocJobs');
    const raw = new DynamoDBClient({ endpoint: store.endpoint, region: LOCAL_REGION, credentials: store.credentials });
    await raw.send(new CreateTableCommand(createTableInput({ ...tableSpecs.vocJobs, indexes: [] }, name)));
    // The streams on a stage of their own, so each table checks one change: the index here, the
    // streams there.
    const streamStage = `${stage}s`;
    const documents = physicalTableName(streamStage, 'documents');
    const conversations = physicalTableName(streamStage, 'conversations');
    // One table without its stream, one with a stream of another view.
    await raw.send(new CreateTableCommand(createTableInput({ ...tableSpecs.documents, stream: false }, documents)));
    await raw.send(
      new CreateTableCommand(
        createTableInput({ ...tableSpecs.conversations, stream: 'NEW_AND_OLD_IMAGES' }, conversations),
      ),
    );
    await createTables(store, stage);
    await createTables(store, streamStage);
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['byOpenJob']);
    const changed = (await raw.send(new DescribeTableCommand({ TableName: documents }))).Table;
    expect(changed?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: tableSpecs.documents.stream });
    expect((await raw.send(new DescribeTableCommand({ TableName: conversations }))).Table?.StreamSpecification).toEqual(
      { StreamEnabled: true, StreamViewType: tableSpecs.conversations.stream },
    );
    // A second start finds nothing to add.
    await createTables(store, streamStage);
    expect((await raw.send(new DescribeTableCommand({ TableName: documents }))).Table?.LatestStreamArn).toBe(
      changed?.LatestStreamArn,
    );
    // Lists served from DynamoDB: the reporting table's stream, which only the indexer reads, is
    // turned off (every record of it would slow the webhooks' reading), and back on for OpenSearch.
    const reporting = physicalTableName(streamStage, 'reporting');
    const streamOf = async (table: string) =>
      (await raw.send(new DescribeTableCommand({ TableName: table }))).Table?.StreamSpecification?.StreamEnabled ??
      false;
    await createTables(store, streamStage, 'dynamodb');
    expect(await streamOf(reporting)).toBe(false);
    expect(await streamOf(documents)).toBe(true);
    await createTables(store, streamStage, 'opensearch');
    expect((await raw.send(new DescribeTableCommand({ TableName: reporting }))).Table?.StreamSpecification).toEqual({
      StreamEnabled: true,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
    const jobs = createVocJobsStore(DynamoDBDocumentClient.from(raw), name);
    const id = newUlid(Date.now());
    await jobs.create(
      tenant,
      {
        id,
        status: 'started',
        started: Date.now(),
        file: 'f',
        recordingId: `rec-${id}`,
        upload: { contentType: 'audio/wav', sizeBytes: 1, fileName: 'a', uploadExpiresAt: Date.now() },
      },
      { inFlightLimit: 1 },
    );
    expect(await jobs.openJobs(Date.now() + 1, 10)).toEqual([{ tenantId: tenant, jobId: id }]);
    raw.destroy();
    // A store started, two stages' tables made and an index built: a start allows the index a
    // minute to become active (dynamodb-local.ts), so the test allows more than that.
  }, 150_000);
});
