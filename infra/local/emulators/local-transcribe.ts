/**
 * The stand-in for Amazon Transcribe that the local runtime points the processor at
 * (`AWS_ENDPOINT_URL_TRANSCRIBE`): no Transcribe runs on this machine, so this answers the four
 * calls the processor makes, `StartCallAnalyticsJob`, `GetCallAnalyticsJob`,
 * `StartTranscriptionJob` and `GetTranscriptionJob`, in the service's own wire format (JSON 1.1),
 * and emits the service's EventBridge events when a job ends. The processor's code path stays the
 * deployed one: the SDK client, its request and the output it reads back from the bucket.
 *
 * It holds requests to the rules the API reference states (job names, a media URI in S3, the
 * data-access role, an output in the bucket, one way to choose the language, speaker labels with
 * their maximum and without channel identification) and refuses a second job of the same name as
 * the service does (ConflictException). Like Transcribe it reads the media itself, through the
 * local S3: a Call Analytics job of anything but two-channel audio fails, as on a stage.
 *
 * What it cannot do is listen: its output, in the documented format, holds what the file's headers
 * say (the call's length) and nothing a listener would add (no words, speakers, sentiment, issues,
 * categories or summary); a summary asked for is reported skipped. Jobs live in memory.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { AnalysisKind } from '#shared/domain/voc/analysis-kind';
import { ANALYSIS_STATE_EVENTS } from '#shared/recording-events';
import { LOCAL_ACCOUNT } from './local-identity.ts';
import { actingAs } from './record-aws-calls.ts';
import { type JsonOperation, ServiceError, serveJsonService } from './serve-json-service.ts';

/** The EventBridge event Transcribe emits when a job ends ("Call Analytics Job State Change" or "Transcribe Job State Change"). */
export interface AnalysisStateEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: 'aws.transcribe';
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, string>;
}

export interface LocalTranscribe {
  endpoint: string;
  /** Calls `listener` with the event of every job that ends; returns the unsubscribe. */
  onStateChange(listener: (event: AnalysisStateEvent) => void): () => void;
  /** Resolves once every job submitted so far has ended. */
  settled(): Promise<void>;
  /** Whether a job is under way. */
  busy(): boolean;
  close(): Promise<void>;
}

export interface LocalTranscribeOptions {
  region: string;
  /** The local S3 that holds recordings and receives the output, and the credentials it accepts. */
  s3Endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

type JobStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';

interface LocalJob {
  kind: AnalysisKind;
  name: string;
  request: Record<string, unknown>;
  status: JobStatus;
  created: number;
  completed?: number;
  failureReason?: string;
  outputUri?: string;
  summarySkipped?: boolean;
}

/** Who the stand-in's own S3 calls are recorded as: the role a stage's Transcribe assumes. */
export const TRANSCRIBE_DATA_ACCESS = 'transcribeDataAccess';

const JOB_NAME = /^[0-9a-zA-Z._-]{1,200}$/;
const ROLE_ARN = /^arn:(aws|aws-cn|aws-us-gov|aws-iso-?[a-z]?):iam::[0-9]{0,63}:role\/[A-Za-z0-9:_/+=,@.-]{0,1024}$/;
const S3_URI = /^s3:\/\/([^/]+)\/(.+)$/;

const asObject = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function jobName(request: Record<string, unknown>, field: string): string {
  const name = request[field];
  if (typeof name !== 'string' || !JOB_NAME.test(name))
    throw new ServiceError(
      'BadRequestException',
      `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[0-9a-zA-Z._-]+ and length 1-200`,
    );
  return name;
}

function mediaLocation(request: Record<string, unknown>): { Bucket: string; Key: string } {
  const match = S3_URI.exec(String(asObject(request.Media).MediaFileUri ?? ''));
  if (!match)
    throw new ServiceError(
      'BadRequestException',
      'The S3 URI of the media file is not valid. Check the MediaFileUri parameter and try your request again.',
    );
  return { Bucket: match[1]!, Key: match[2]! };
}

function requireRole(arn: unknown, field: string): void {
  if (typeof arn !== 'string' || !ROLE_ARN.test(arn))
    throw new ServiceError('BadRequestException', `The ${field} parameter is missing or not a valid IAM role ARN.`);
}

/** The output object of a job: `s3://bucket/prefix/` (Call Analytics) or bucket + key (a transcription). */
function outputLocation(
  kind: AnalysisKind,
  request: Record<string, unknown>,
  name: string,
): { Bucket: string; Key: string } {
  if (kind === 'call-analytics') {
    const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(String(request.OutputLocation ?? ''));
    if (!match)
      throw new ServiceError(
        'BadRequestException',
        'The OutputLocation parameter must be an S3 URI (s3://bucket/prefix/).',
      );
    const prefix = match[2]!;
    return { Bucket: match[1]!, Key: prefix === '' || prefix.endsWith('/') ? `${prefix}${name}.json` : prefix };
  }
  const bucket = request.OutputBucketName;
  if (typeof bucket !== 'string' || bucket === '')
    throw new ServiceError(
      'BadRequestException',
      'The local stand-in writes transcripts to your bucket only: give OutputBucketName.',
    );
  const key = typeof request.OutputKey === 'string' ? request.OutputKey : '';
  return { Bucket: bucket, Key: key === '' || key.endsWith('/') ? `${key}${name}.json` : key };
}

/** The checks the API reference states for each kind of request, beyond the name and the media. */
function checkRequest(kind: AnalysisKind, request: Record<string, unknown>): void {
  if (kind === 'call-analytics') {
    requireRole(request.DataAccessRoleArn, 'DataAccessRoleArn');
    return;
  }
  const ways = [
    request.LanguageCode !== undefined,
    request.IdentifyLanguage === true,
    request.IdentifyMultipleLanguages === true,
  ].filter(Boolean).length;
  if (ways !== 1)
    throw new ServiceError(
      'BadRequestException',
      'Specify exactly one of LanguageCode, IdentifyLanguage or IdentifyMultipleLanguages.',
    );
  const settings = asObject(request.Settings);
  if (settings.ShowSpeakerLabels === true) {
    const max = settings.MaxSpeakerLabels;
    if (typeof max !== 'number' || max < 2 || max > 30)
      throw new ServiceError(
        'BadRequestException',
        'When ShowSpeakerLabels is true, MaxSpeakerLabels must be a number from 2 to 30.',
      );
    if (settings.ChannelIdentification === true)
      throw new ServiceError(
        'BadRequestException',
        "You can't use ShowSpeakerLabels and ChannelIdentification in the same request.",
      );
  }
  const execution = asObject(request.JobExecutionSettings);
  if (execution.AllowDeferredExecution === true)
    requireRole(execution.DataAccessRoleArn, 'JobExecutionSettings.DataAccessRoleArn');
}

/** The job as GetCallAnalyticsJob / GetTranscriptionJob (and the Start calls) answer it. */
function describe(job: LocalJob): Record<string, unknown> {
  const times = {
    CreationTime: job.created / 1000,
    StartTime: job.created / 1000,
    ...(job.completed && { CompletionTime: job.completed / 1000 }),
  };
  const output = job.outputUri ? { Transcript: { TranscriptFileUri: job.outputUri } } : {};
  const failure = job.failureReason ? { FailureReason: job.failureReason } : {};
  if (job.kind === 'call-analytics') {
    return {
      CallAnalyticsJob: {
        CallAnalyticsJobName: job.name,
        CallAnalyticsJobStatus: job.status,
        Media: job.request.Media,
        DataAccessRoleArn: job.request.DataAccessRoleArn,
        ...(job.request.ChannelDefinitions !== undefined && { ChannelDefinitions: job.request.ChannelDefinitions }),
        ...(job.request.Settings !== undefined && { Settings: job.request.Settings }),
        ...(job.summarySkipped && {
          CallAnalyticsJobDetails: {
            Skipped: [
              {
                Feature: 'GENERATIVE_SUMMARIZATION',
                ReasonCode: 'INSUFFICIENT_CONVERSATION_CONTENT',
                Message: 'The local stand-in for Amazon Transcribe cannot listen.',
              },
            ],
          },
        }),
        ...times,
        ...output,
        ...failure,
      },
    };
  }
  return {
    TranscriptionJob: {
      TranscriptionJobName: job.name,
      TranscriptionJobStatus: job.status,
      Media: job.request.Media,
      ...(job.request.Settings !== undefined && { Settings: job.request.Settings }),
      ...(job.request.JobExecutionSettings !== undefined && { JobExecutionSettings: job.request.JobExecutionSettings }),
      ...times,
      ...output,
      ...failure,
    },
  };
}

const OPERATIONS: Record<string, { kind: AnalysisKind; start: boolean; nameField: string }> = {
  'Transcribe.StartCallAnalyticsJob': { kind: 'call-analytics', start: true, nameField: 'CallAnalyticsJobName' },
  'Transcribe.GetCallAnalyticsJob': { kind: 'call-analytics', start: false, nameField: 'CallAnalyticsJobName' },
  'Transcribe.StartTranscriptionJob': { kind: 'transcription', start: true, nameField: 'TranscriptionJobName' },
  'Transcribe.GetTranscriptionJob': { kind: 'transcription', start: false, nameField: 'TranscriptionJobName' },
};

/**
 * One stand-in per process and local S3, shared by whoever asks (reference-counted), as the local
 * S3 is: the sources runtime's processor lives in this process and reads one endpoint from its
 * environment, so two gateways in one process (the fault tests) share it too. Closed with its last
 * user.
 *
 * @example const transcribe = await acquireLocalTranscribe({ region: 'us-east-1', s3Endpoint, credentials });
 */
export async function acquireLocalTranscribe(options: LocalTranscribeOptions): Promise<LocalTranscribe> {
  let entry = shared.get(options.s3Endpoint);
  if (!entry) {
    entry = { users: 0, started: startLocalTranscribe(options) };
    shared.set(options.s3Endpoint, entry);
    entry.started.catch(() => shared.delete(options.s3Endpoint));
  }
  entry.users++;
  const transcribe = await entry.started;
  const mine = new Set<() => void>();
  let released = false;
  return {
    endpoint: transcribe.endpoint,
    onStateChange(listener) {
      const unsubscribe = transcribe.onStateChange(listener);
      mine.add(unsubscribe);
      return () => {
        mine.delete(unsubscribe);
        unsubscribe();
      };
    },
    settled: () => transcribe.settled(),
    busy: () => transcribe.busy(),
    async close() {
      if (released) return;
      released = true;
      for (const unsubscribe of mine) unsubscribe();
      if (--entry.users > 0) return;
      shared.delete(options.s3Endpoint);
      await transcribe.close();
    },
  };
}

const shared = new Map<string, { users: number; started: Promise<LocalTranscribe> }>();

/**
 * What a job runs with: the S3 client and the audio probe, loaded at the first job (about a quarter
 * of a second of imports), since most runs of the local stage analyse nothing.
 */
async function loadJobParts(options: LocalTranscribeOptions) {
  const [{ GetObjectCommand, PutObjectCommand, S3Client }, { NotAudioError, probeAudio }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('#shared/analysis/probe-audio'),
  ]);
  const s3: S3Client = new S3Client({
    endpoint: options.s3Endpoint,
    region: options.region,
    forcePathStyle: true,
    credentials: options.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return { s3, GetObjectCommand, PutObjectCommand, NotAudioError, probeAudio };
}

/** Starts a stand-in of its own on a free port of 127.0.0.1. */
async function startLocalTranscribe(options: LocalTranscribeOptions): Promise<LocalTranscribe> {
  let parts: ReturnType<typeof loadJobParts> | undefined;
  const jobs = new Map<string, LocalJob>();
  const running = new Set<Promise<void>>();
  const listeners = new Set<(event: AnalysisStateEvent) => void>();

  /** Reads the media as Transcribe would, writes the output, ends the job and tells EventBridge. */
  async function run(job: LocalJob): Promise<void> {
    parts ??= loadJobParts(options).catch((error: unknown) => {
      parts = undefined;
      throw error;
    });
    try {
      const { s3, GetObjectCommand, PutObjectCommand, NotAudioError, probeAudio } = await parts;
      const media = mediaLocation(job.request);
      const output = outputLocation(job.kind, job.request, job.name);
      const object = await s3.send(new GetObjectCommand(media)).catch(() => undefined);
      if (!object?.Body)
        throw new NotAudioError(
          `the media file ${String(asObject(job.request.Media).MediaFileUri)} can't be read; check that it exists and that the data access role can read it`,
        );
      const probe = await probeAudio(object.Body as Readable, object.ContentLength ?? 0);
      const durationMillis = probe.durationSeconds === undefined ? undefined : Math.round(probe.durationSeconds * 1000);
      let document: Record<string, unknown>;
      if (job.kind === 'call-analytics') {
        const channels = ((job.request.ChannelDefinitions as { ChannelId?: number }[] | undefined) ?? [])
          .map((definition) => definition.ChannelId)
          .sort();
        if (probe.channels !== 2 || channels.join(',') !== '0,1') {
          throw new NotAudioError(
            `Call Analytics takes two-channel audio with a participant on each channel; this file has ${probe.channels} channel${probe.channels === 1 ? '' : 's'} and the request defines channels [${channels.join(', ')}]`,
          );
        }
        job.summarySkipped = asObject(asObject(job.request.Settings).Summarization).GenerateAbstractiveSummary === true;
        document = {
          JobName: job.name,
          AccountId: LOCAL_ACCOUNT,
          JobStatus: 'COMPLETED',
          Channel: 'VOICE',
          Participants: [{ ParticipantRole: 'AGENT' }, { ParticipantRole: 'CUSTOMER' }],
          ConversationCharacteristics:
            durationMillis === undefined ? {} : { TotalConversationDurationMillis: durationMillis },
        };
      } else {
        document = { jobName: job.name, accountId: LOCAL_ACCOUNT, status: 'COMPLETED', results: {} };
      }
      await s3.send(
        new PutObjectCommand({ ...output, Body: JSON.stringify(document), ContentType: 'application/json' }),
      );
      job.outputUri = `https://s3.${options.region}.amazonaws.com/${output.Bucket}/${output.Key.split('/').map(encodeURIComponent).join('/')}`;
      job.status = 'COMPLETED';
    } catch (error) {
      job.status = 'FAILED';
      job.failureReason =
        (error instanceof Error && error.name === 'NotAudioError') || error instanceof ServiceError
          ? error.message
          : `The local stand-in could not run the job: ${error instanceof Error ? error.message : String(error)}`;
    }
    job.completed = Date.now();
    const names = ANALYSIS_STATE_EVENTS[job.kind];
    const event: AnalysisStateEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': names.detailType,
      source: 'aws.transcribe',
      account: LOCAL_ACCOUNT,
      time: new Date(job.completed).toISOString(),
      region: options.region,
      resources: [],
      detail: {
        [names.nameField]: job.name,
        [names.statusField]: job.status,
        ...(job.failureReason && { FailureReason: job.failureReason }),
      },
    };
    for (const listener of listeners) listener(event);
  }

  /** A Get answers the job as it stands; a Start checks the request as the service does, then runs the job. */
  function operation(target: string): JsonOperation {
    const { kind, start, nameField } = OPERATIONS[target]!;
    return (request) => {
      const name = jobName(request, nameField);
      const id = `${kind}/${name}`;
      if (!start) {
        const job = jobs.get(id);
        if (!job)
          throw new ServiceError(
            'NotFoundException',
            "The requested job couldn't be found. Check the job name and try your request again.",
          );
        return describe(job);
      }
      if (jobs.has(id))
        throw new ServiceError('ConflictException', 'The requested job name already exists. Use a different job name.');
      mediaLocation(request);
      checkRequest(kind, request);
      outputLocation(kind, request, name);
      const job: LocalJob = { kind, name, request, status: 'IN_PROGRESS', created: Date.now() };
      jobs.set(id, job);
      // Transcribe reads and writes through the data-access role the request passed: its calls are that role's.
      const done = actingAs(TRANSCRIBE_DATA_ACCESS, () => run(job)).finally(() => running.delete(done));
      running.add(done);
      return describe(job);
    };
  }

  const server = await serveJsonService(
    'Amazon Transcribe',
    Object.fromEntries(Object.keys(OPERATIONS).map((target) => [target, operation(target)])),
    { accepted: options.credentials },
  );
  return {
    endpoint: server.endpoint,
    onStateChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async settled() {
      while (running.size > 0) await Promise.all([...running]);
    },
    busy: () => running.size > 0,
    async close() {
      await server.close();
      while (running.size > 0) await Promise.all([...running]);
      (await parts?.catch(() => undefined))?.s3.destroy();
    },
  };
}
