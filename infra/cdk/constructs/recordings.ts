/**
 * VOC recordings on a stage: the bucket uploads go to (presigned PUTs, never through API Gateway),
 * its "Object Created" events on EventBridge, the processor they invoke, the role Amazon Transcribe
 * reads and writes with (Call Analytics for two-channel calls, a transcription job for mono ones),
 * Transcribe's "job state change" events back to the processor, the schedule of the sweep that
 * collects an analysis whose event was lost, and the dead-letter queue of events the processor gave
 * up on. The processor's contract is in functions/voc/process-recording.ts.
 */

import { Aws, CfnRule, Duration, Fn, Stack, Token } from 'aws-cdk-lib';
import { type EventPattern, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AnyPrincipal, Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { functionName } from '#infra/stage-names';
import type { TableAccess } from '#shared/api/route-spec';
import { ANALYSIS_PREFIX, analysisJobNamePrefix } from '#shared/domain/voc/analysis-job-names';
import { RECORDINGS_PREFIX } from '#shared/domain/voc/recording-upload';
import {
  ANALYSIS_SWEEP_MINUTES,
  analysisFinishedPattern,
  analysisSweepRuleName,
  RECORDING_PROCESSOR,
  type RecordingEventPattern,
  recordingArrivedPattern,
  recordingsBucketName,
} from '#shared/recording-events';
import { RecordingUpload } from '#shared/schemas/voc-schemas';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import type { TableId } from '#shared/store/table-specs';
import { CALL_SUMMARY_REGIONS, callSummariesOffered, callSummariesRefusal } from '../stage/call-summary-regions.ts';
import { reservedConcurrency } from '../stage/concurrency-reservations.ts';
import type { StageConfig } from '../stage/config.ts';
import { ApiFunction } from './api-function.ts';
import type { SpecTable } from './data.ts';

/** How long an event may wait for the processor, EventBridge's retries and Lambda's together. */
const MAX_EVENT_AGE = Duration.minutes(15);

/** A pattern as shared/recording-events.ts writes it (EventBridge's JSON) -> CDK's EventPattern. */
function cdkPattern(pattern: RecordingEventPattern): EventPattern {
  return { source: pattern.source, detailType: pattern['detail-type'], detail: pattern.detail };
}

/**
 * The headers an upload URL requires (what the create answer tells the caller to send), less the
 * one a browser sets by itself: a page's PUT is preflighted with these.
 */
const BROWSER_UPLOAD_HEADERS = RecordingUpload.properties.upload.properties.headers.required
  .filter((name) => name !== 'Content-Length')
  .map((name) => name.toLowerCase());

export class Recordings extends Construct {
  readonly bucket: Bucket;
  readonly processor: ApiFunction;
  readonly deadLetterQueue: Queue;
  readonly transcribeRole: Role;
  readonly stage: string;

  constructor(scope: Construct, id: string, props: { config: StageConfig; tables: Record<TableId, SpecTable> }) {
    super(scope, id);
    const { config, tables } = props;
    const { stage, recordings } = config;
    this.stage = stage;
    const retention = Duration.days(recordings.retentionDays);

    this.bucket = new Bucket(this, 'Bucket', {
      bucketName: recordingsBucketName(stage, Aws.ACCOUNT_ID, Aws.REGION),
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: config.removalPolicy,
      lifecycleRules: [
        {
          id: 'recordings',
          prefix: RECORDINGS_PREFIX,
          expiration: retention,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        { id: 'analysis', prefix: ANALYSIS_PREFIX, expiration: retention },
      ],
      // Only where a stage lets browser pages upload: servers need no CORS.
      ...(recordings.browserUploadOrigins.length > 0 && {
        cors: [
          {
            allowedMethods: [HttpMethods.PUT],
            allowedOrigins: [...recordings.browserUploadOrigins],
            allowedHeaders: [...BROWSER_UPLOAD_HEADERS],
            maxAge: 3000,
          },
        ],
      }),
    });

    // Every object event goes to EventBridge; the rule below picks the recordings. Set on the
    // resource itself: CDK's `eventBridgeEnabled` adds a custom resource (a Lambda function with a
    // managed policy) to do what one property does.
    (this.bucket.node.defaultChild as CfnBucket).notificationConfiguration = {
      eventBridgeConfiguration: { eventBridgeEnabled: true },
    };
    const objects = (prefix: string) => this.bucket.arnForObjects(`${prefix}*`);
    // A recording's key is written once: the upload URL signs `If-None-Match: *` (S3 refuses a
    // second PUT with 412), and this refuses any PUT to recordings/ without it, whoever signs it, so
    // the file the processor probed is the file Transcribe reads later.
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'RecordingsAreWrittenOnce',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:PutObject'],
        resources: [objects(RECORDINGS_PREFIX)],
        // A negated operator also matches a request without the header.
        conditions: { StringNotEquals: { 's3:if-none-match': '*' } },
      }),
    );

    // This stage's Transcribe jobs, of both kinds: their names start `cxm.<stage>.` (analysis-job-names.ts).
    const jobArns = (resourceType: 'analytics' | 'transcription-job') =>
      `arn:${Aws.PARTITION}:transcribe:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resourceType}/${analysisJobNamePrefix(stage)}*`;

    // Transcribe reads the recording and writes its output with this role: what AWS's example
    // data-access role grants (GetObject and ListBucket on the input, PutObject on the output) and
    // no more, assumed only by Transcribe for this stage's jobs (aws:SourceArn, against a confused
    // deputy) in this account.
    const transcribeRole = new Role(this, 'TranscribeRole', {
      description: "Amazon Transcribe: reads VOC recordings, writes their analysis, for this stage's jobs only",
      assumedBy: new ServicePrincipal('transcribe.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': [jobArns('analytics'), jobArns('transcription-job')] },
        },
      }),
    });
    this.transcribeRole = transcribeRole;
    transcribeRole.addToPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [objects(RECORDINGS_PREFIX)] }),
    );
    transcribeRole.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
    transcribeRole.addToPolicy(
      new PolicyStatement({ actions: ['s3:PutObject'], resources: [objects(ANALYSIS_PREFIX)] }),
    );

    if (recordings.callSummaries) refuseRegionsWithoutSummaries(this, stage);

    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `cxm-${stage}-recording-processor-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    this.processor = new ApiFunction(this, 'Processor', {
      entry: RECORDING_PROCESSOR.handler,
      functionName: functionName(stage, RECORDING_PROCESSOR.id),
      description: 'VOC recordings: object created -> check, analyse, write the VOC row, complete the job',
      // Reading a long recording's headers over the network; Ogg files are read whole.
      timeout: Duration.minutes(5),
      config,
      environment: {
        [FUNCTION_ENV.recordingsBucket]: this.bucket.bucketName,
        [FUNCTION_ENV.recordingUploadGraceSeconds]: String(recordings.uploadGrace.toSeconds()),
        [FUNCTION_ENV.recordingProcessingWindowSeconds]: String(recordings.processingWindow.toSeconds()),
        [FUNCTION_ENV.recordingMaxSeconds]: String(recordings.maxDuration.toSeconds()),
        [FUNCTION_ENV.transcribeRoleArn]: transcribeRole.roleArn,
        [FUNCTION_ENV.recordingCallSummaries]: String(recordings.callSummaries),
      },
      // Lambda's own retries of an event (2), then the dead-letter queue. An event waits at most
      // 15 minutes, less than the upload grace (20 by default): a job is never failed as "not
      // uploaded" while its file's event may still come.
      retryAttempts: 2,
      maxEventAge: MAX_EVENT_AGE,
      onFailure: new SqsDestination(this.deadLetterQueue),
      ...reservedConcurrency(config, RECORDING_PROCESSOR.id),
    });
    for (const [tableId, access] of Object.entries(RECORDING_PROCESSOR.tables) as [TableId, TableAccess][])
      this.processor.bindTable(tables[tableId], access);
    this.processor.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [objects(RECORDINGS_PREFIX), objects(ANALYSIS_PREFIX)],
      }),
    );
    this.processor.addToRolePolicy(
      new PolicyStatement({ actions: ['transcribe:GetCallAnalyticsJob'], resources: [jobArns('analytics')] }),
    );
    this.processor.addToRolePolicy(
      new PolicyStatement({ actions: ['transcribe:GetTranscriptionJob'], resources: [jobArns('transcription-job')] }),
    );
    // Starting a job has no resource type to scope it to (Service Authorization Reference): "*",
    // held by the condition keys each action supports to output in this bucket's analysis prefix,
    // and nowhere else (a request that names no output has no key, and is refused too).
    this.processor.addToRolePolicy(
      new PolicyStatement({
        actions: ['transcribe:StartCallAnalyticsJob'],
        resources: ['*'],
        conditions: {
          StringLike: { 'transcribe:OutputLocation': `s3://${this.bucket.bucketName}/${ANALYSIS_PREFIX}*` },
        },
      }),
    );
    this.processor.addToRolePolicy(
      new PolicyStatement({
        actions: ['transcribe:StartTranscriptionJob'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'transcribe:OutputBucketName': this.bucket.bucketName },
          StringLike: { 'transcribe:OutputKey': `${ANALYSIS_PREFIX}*` },
        },
      }),
    );
    this.processor.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [transcribeRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'transcribe.amazonaws.com' } },
      }),
    );

    // EventBridge gives up on a target after its own retries: those events land in the same queue.
    const target = new LambdaFunction(this.processor, {
      deadLetterQueue: this.deadLetterQueue,
      retryAttempts: 8,
      maxEventAge: MAX_EVENT_AGE,
    });
    new Rule(this, 'RecordingArrived', {
      ruleName: `cxm-${stage}-recording-arrived`,
      description: 'A VOC recording was uploaded: run its job',
      eventPattern: cdkPattern(recordingArrivedPattern(this.bucket.bucketName)),
      targets: [target],
    });
    new Rule(this, 'AnalysisFinished', {
      ruleName: `cxm-${stage}-recording-analysis-finished`,
      description: 'Amazon Transcribe finished a Call Analytics job (a two-channel call): finish its VOC job',
      eventPattern: cdkPattern(analysisFinishedPattern(stage, 'call-analytics')),
      targets: [target],
    });
    new Rule(this, 'TranscriptionFinished', {
      ruleName: `cxm-${stage}-recording-transcription-finished`,
      description: 'Amazon Transcribe finished a transcription job (a mono call): finish its VOC job',
      eventPattern: cdkPattern(analysisFinishedPattern(stage, 'transcription')),
      targets: [target],
    });
    // EventBridge delivers Transcribe's events on a best-effort basis: the sweep asks about every
    // analysis still under way, so a lost event delays a job by minutes instead of failing it.
    new Rule(this, 'AnalysisSweep', {
      ruleName: analysisSweepRuleName(stage),
      description: 'Collect VOC analyses whose state-change event was lost; fail those past their window',
      schedule: Schedule.rate(Duration.minutes(ANALYSIS_SWEEP_MINUTES)),
      targets: [target],
    });
  }
}

/**
 * Generative call summaries exist in few regions: a stage that asks for them elsewhere is refused
 * at synth when its region is known, else by a template rule that CloudFormation checks before it
 * creates anything, with the same sentence.
 */
function refuseRegionsWithoutSummaries(scope: Construct, stage: string): void {
  const region = Stack.of(scope).region;
  if (!Token.isUnresolved(region)) {
    if (!callSummariesOffered(region)) throw new Error(callSummariesRefusal(stage, region));
    return;
  }
  new CfnRule(scope, 'CallSummariesRegion', {
    assertions: [
      {
        assert: Fn.conditionContains([...CALL_SUMMARY_REGIONS], Aws.REGION),
        assertDescription: callSummariesRefusal(stage, 'this region'),
      },
    ],
  });
}
