/**
 * The local stand-in for Amazon Transcribe, through the real SDK client: it holds requests to the
 * rules of the API reference, refuses a second job of a name as the service does, reads the media
 * through the local S3 as Transcribe would (a Call Analytics job of mono audio fails), and writes
 * its output where the request said, announcing the end with the service's EventBridge event.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  BadRequestException,
  ConflictException,
  GetCallAnalyticsJobCommand,
  GetTranscriptionJobCommand,
  NotFoundException,
  StartCallAnalyticsJobCommand,
  StartTranscriptionJobCommand,
  TranscribeClient,
} from '@aws-sdk/client-transcribe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleCall } from '#infra/cli/recordings/sample-call';
import { tinyWav } from '#infra/cli/recordings/tiny-wav';
import { acquireLocalS3, type LocalS3 } from '#infra/local/emulators/local-s3';
import {
  type AnalysisStateEvent,
  acquireLocalTranscribe,
  type LocalTranscribe,
} from '#infra/local/emulators/local-transcribe';

const credentials = { accessKeyId: 'LCXMTRANSCRIBETEST01', secretAccessKey: 'local-transcribe-test-secret' };
const REGION = 'us-east-1';
const ROLE = 'arn:aws:iam::000000000000:role/cxm-local-transcribe';
let s3Server: LocalS3;
let stand: LocalTranscribe;
let s3: S3Client;
let transcribe: TranscribeClient;
const events: AnalysisStateEvent[] = [];

beforeAll(async () => {
  s3Server = await acquireLocalS3({ bucket: 'cxm-ltr-recordings-000000000000-us-east-1', credentials });
  stand = await acquireLocalTranscribe({ region: REGION, s3Endpoint: s3Server.endpoint, credentials });
  stand.onStateChange((event) => events.push(event));
  s3 = new S3Client({ endpoint: s3Server.endpoint, region: REGION, forcePathStyle: true, credentials });
  transcribe = new TranscribeClient({ endpoint: stand.endpoint, region: REGION, credentials });
  await s3.send(new PutObjectCommand({ Bucket: s3Server.bucket, Key: 'recordings/t/stereo.flac', Body: sampleCall() }));
  await s3.send(new PutObjectCommand({ Bucket: s3Server.bucket, Key: 'recordings/t/mono.wav', Body: tinyWav(1) }));
});

afterAll(async () => {
  transcribe?.destroy();
  s3?.destroy();
  await stand?.close();
  await s3Server?.close();
});

const media = (key: string) => ({ MediaFileUri: `s3://${s3Server.bucket}/recordings/t/${key}` });
const output = `s3://cxm-ltr-recordings-000000000000-us-east-1/analysis/t/`;

describe('Call Analytics', () => {
  it('a two-channel call completes, its output where the request said, and the service event announces it', async () => {
    const name = 'cxm.ltr.stereo';
    const started = await transcribe.send(
      new StartCallAnalyticsJobCommand({
        CallAnalyticsJobName: name,
        Media: media('stereo.flac'),
        OutputLocation: output,
        DataAccessRoleArn: ROLE,
        ChannelDefinitions: [
          { ChannelId: 0, ParticipantRole: 'AGENT' },
          { ChannelId: 1, ParticipantRole: 'CUSTOMER' },
        ],
      }),
    );
    expect(started.CallAnalyticsJob?.CallAnalyticsJobStatus).toBe('IN_PROGRESS');
    await stand.settled();
    const { CallAnalyticsJob: job } = await transcribe.send(
      new GetCallAnalyticsJobCommand({ CallAnalyticsJobName: name }),
    );
    expect(job).toMatchObject({
      CallAnalyticsJobStatus: 'COMPLETED',
      Transcript: {
        TranscriptFileUri: `https://s3.us-east-1.amazonaws.com/${s3Server.bucket}/analysis/t/${name}.json`,
      },
    });
    const written = await s3.send(new GetObjectCommand({ Bucket: s3Server.bucket, Key: `analysis/t/${name}.json` }));
    expect(JSON.parse(await written.Body!.transformToString())).toMatchObject({
      JobName: name,
      JobStatus: 'COMPLETED',
      ConversationCharacteristics: { TotalConversationDurationMillis: 14659 },
    });
    expect(events.find((event) => event.detail.JobName === name)).toMatchObject({
      source: 'aws.transcribe',
      'detail-type': 'Call Analytics Job State Change',
      detail: { JobName: name, JobStatus: 'COMPLETED' },
    });
  });

  it('a second job of a name is a conflict; a job no one started is not found', async () => {
    const request = {
      CallAnalyticsJobName: 'cxm.ltr.twice',
      Media: media('stereo.flac'),
      OutputLocation: output,
      DataAccessRoleArn: ROLE,
    };
    await transcribe.send(new StartCallAnalyticsJobCommand(request));
    await expect(transcribe.send(new StartCallAnalyticsJobCommand(request))).rejects.toBeInstanceOf(ConflictException);
    await expect(
      transcribe.send(new GetCallAnalyticsJobCommand({ CallAnalyticsJobName: 'cxm.ltr.never' })),
    ).rejects.toBeInstanceOf(NotFoundException);
    await stand.settled();
  });

  it('mono audio fails the job, as Call Analytics takes two channels; no data-access role is a bad request', async () => {
    await transcribe.send(
      new StartCallAnalyticsJobCommand({
        CallAnalyticsJobName: 'cxm.ltr.mono',
        Media: media('mono.wav'),
        OutputLocation: output,
        DataAccessRoleArn: ROLE,
      }),
    );
    await stand.settled();
    const { CallAnalyticsJob: job } = await transcribe.send(
      new GetCallAnalyticsJobCommand({ CallAnalyticsJobName: 'cxm.ltr.mono' }),
    );
    expect(job).toMatchObject({
      CallAnalyticsJobStatus: 'FAILED',
      FailureReason: expect.stringContaining('Call Analytics takes two-channel audio'),
    });
    await expect(
      transcribe.send(
        new StartCallAnalyticsJobCommand({
          CallAnalyticsJobName: 'cxm.ltr.norole',
          Media: media('stereo.flac'),
          OutputLocation: output,
        }),
      ),
    ).rejects.toBeInstanceOf(BadRequestException);
  });
});

describe('a transcription job', () => {
  it('with speaker labels completes and writes its transcript under the output key', async () => {
    const name = 'cxm.ltr.mono-transcript';
    await transcribe.send(
      new StartTranscriptionJobCommand({
        TranscriptionJobName: name,
        Media: media('mono.wav'),
        IdentifyLanguage: true,
        OutputBucketName: s3Server.bucket,
        OutputKey: 'analysis/t/',
        Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: 2 },
        JobExecutionSettings: { AllowDeferredExecution: true, DataAccessRoleArn: ROLE },
      }),
    );
    await stand.settled();
    const { TranscriptionJob: job } = await transcribe.send(
      new GetTranscriptionJobCommand({ TranscriptionJobName: name }),
    );
    expect(job?.TranscriptionJobStatus).toBe('COMPLETED');
    expect(events.find((event) => event.detail.TranscriptionJobName === name)).toMatchObject({
      'detail-type': 'Transcribe Job State Change',
      detail: { TranscriptionJobStatus: 'COMPLETED' },
    });
  });

  it.each([
    ['no way to choose the language', {}],
    ['speaker labels without their maximum', { IdentifyLanguage: true, Settings: { ShowSpeakerLabels: true } }],
    [
      'speaker labels beside channel identification',
      {
        IdentifyLanguage: true,
        Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: 2, ChannelIdentification: true },
      },
    ],
    [
      'deferred execution without a data-access role',
      { IdentifyLanguage: true, JobExecutionSettings: { AllowDeferredExecution: true } },
    ],
  ])('refuses %s, as the API reference does', async (_name, extra) => {
    const request = {
      TranscriptionJobName: `cxm.ltr.bad-${Math.random().toString(36).slice(2)}`,
      Media: media('mono.wav'),
      OutputBucketName: s3Server.bucket,
      OutputKey: 'analysis/t/',
      ...extra,
    };
    await expect(transcribe.send(new StartTranscriptionJobCommand(request))).rejects.toBeInstanceOf(
      BadRequestException,
    );
  });
});
