/**
 * VOC recordings in the synthesized stack: the bucket (encrypted, TLS only, private, expiring,
 * EventBridge on, CORS only where a stage asks), the rules to the processor (a recording arrived,
 * either kind of analysis ended, the sweep's schedule), its retries and dead-letter queue, and
 * every grant at its least: the upload function puts recordings, the processor reads them and runs
 * this stage's Transcribe jobs with their output held to the analysis prefix, Transcribe's role
 * does what AWS's example data-access role does for this stage's jobs only. The templates are the
 * run's syntheses of the stages (test/support/stage-templates.ts), but for the stacks placed in a
 * region, which this file builds. Bundling is skipped: these assertions read resource properties.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { CxmStack } from '#infra/cdk/stack';
import { type StageConfig, stageConfig } from '#infra/cdk/stage/config';
import { recordingArrivedPattern } from '#shared/recording-events';
import { RECORDING_SETTING_ENVS } from '#shared/settings/recording-settings';
import { CDK_JSON_CONTEXT, WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';
import { loadStageTemplates, stageTemplate } from '#test/support/stage-templates';

interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: unknown;
}

let dev: Template;
/** A stage that lists browser upload origins. */
let browser: Template;

beforeAll(async () => {
  await loadStageTemplates(['dev', 'lite-flipped']);
  dev = Template.fromJSON(stageTemplate('dev').template);
  expect(stageTemplate('lite-flipped').config.recordings.browserUploadOrigins).toEqual(['https://app.example.com']);
  browser = Template.fromJSON(stageTemplate('lite-flipped').template);
});

const resources = (template: Template, type: string) =>
  Object.entries(template.findResources(type)) as [string, CfnResource][];
const only = (template: Template, type: string) => {
  const found = resources(template, type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const functionNamed = (template: Template, name: string) =>
  resources(template, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties.FunctionName === name)!;

/** Every statement of the policies attached to a role. */
function statementsOf(template: Template, roleId: string): Statement[] {
  return resources(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** The ARN of the dev stage's Transcribe jobs of `type`, as the template builds it. */
const jobArn = (type: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':transcribe:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:${type}/cxm.dev.*`,
    ],
  ],
});

const roleOf = (template: Template, functionName: string) =>
  (functionNamed(template, functionName)[1].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
const actions = (statement: Statement) => [statement.Action].flat();
const s3Statements = (template: Template, roleId: string) =>
  statementsOf(template, roleId).filter((statement) => actions(statement).some((action) => action.startsWith('s3:')));

describe('the recordings bucket', () => {
  it('is named per stage, account and region, encrypted, private, owner-enforced, with EventBridge notifications', () => {
    const [, bucket] = only(dev, 'AWS::S3::Bucket');
    expect(bucket.Properties).toMatchObject({
      BucketName: { 'Fn::Join': ['', ['cxm-dev-recordings-', { Ref: 'AWS::AccountId' }, '-', { Ref: 'AWS::Region' }]] },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
    });
    expect(bucket.Properties.CorsConfiguration).toBeUndefined();
    // No custom resource (a Lambda function with a managed policy) stands in for that property.
    expect(resources(dev, 'Custom::S3BucketNotifications')).toEqual([]);
  });

  it('expires recordings and their analysis after the stage retention, and aborts stale multipart uploads', () => {
    const [, bucket] = only(dev, 'AWS::S3::Bucket');
    const days = stageConfig('dev').recordings.retentionDays;
    expect((bucket.Properties.LifecycleConfiguration as { Rules: unknown[] }).Rules).toEqual([
      {
        Id: 'recordings',
        Prefix: 'recordings/',
        ExpirationInDays: days,
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        Status: 'Enabled',
      },
      { Id: 'analysis', Prefix: 'analysis/', ExpirationInDays: days, Status: 'Enabled' },
    ]);
  });

  it('refuses every request without TLS, and any PUT to recordings/ that is not a write-once (If-None-Match: *)', () => {
    const [, policy] = only(dev, 'AWS::S3::BucketPolicy');
    const statements = (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
    const [bucketId] = only(dev, 'AWS::S3::Bucket');
    expect(statements).toEqual([
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
      expect.objectContaining({
        Sid: 'RecordingsAreWrittenOnce',
        Effect: 'Deny',
        Action: 's3:PutObject',
        Principal: { AWS: '*' },
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/recordings/*']] },
        Condition: { StringNotEquals: { 's3:if-none-match': '*' } },
      }),
    ]);
  });

  it('allows browser uploads (PUT with the Content-Type and If-None-Match every upload URL requires) only from the origins a stage lists', () => {
    const [, bucket] = only(browser, 'AWS::S3::Bucket');
    expect(bucket.Properties.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedMethods: ['PUT'],
          AllowedOrigins: ['https://app.example.com'],
          AllowedHeaders: ['content-type', 'if-none-match'],
          MaxAge: 3000,
        },
      ],
    });
  });
});

describe('events to the processor', () => {
  it("a rule for recordings created in this bucket, one for each kind of this stage's Transcribe jobs, and the sweep's schedule, all to the processor with a DLQ", () => {
    const [processorId] = functionNamed(dev, 'cxm-dev-processRecording');
    const [bucketId] = only(dev, 'AWS::S3::Bucket');
    const rules = new Map(
      resources(dev, 'AWS::Events::Rule').map(([, rule]) => [rule.Properties.Name as string, rule.Properties]),
    );
    const arrived = rules.get('cxm-dev-recording-arrived')!;
    expect(arrived.EventPattern).toEqual({
      ...recordingArrivedPattern('X'),
      detail: { ...recordingArrivedPattern('X').detail, bucket: { name: [{ Ref: bucketId }] } },
    });
    expect(rules.get('cxm-dev-recording-analysis-finished')!.EventPattern).toEqual({
      source: ['aws.transcribe'],
      'detail-type': ['Call Analytics Job State Change'],
      detail: { JobStatus: ['COMPLETED', 'FAILED'], JobName: [{ prefix: 'cxm.dev.' }] },
    });
    expect(rules.get('cxm-dev-recording-transcription-finished')!.EventPattern).toEqual({
      source: ['aws.transcribe'],
      'detail-type': ['Transcribe Job State Change'],
      detail: { TranscriptionJobStatus: ['COMPLETED', 'FAILED'], TranscriptionJobName: [{ prefix: 'cxm.dev.' }] },
    });
    const sweep = rules.get('cxm-dev-recording-analysis-sweep')!;
    expect(sweep.ScheduleExpression).toBe('rate(5 minutes)');
    const [dlqId] = resources(dev, 'AWS::SQS::Queue').find(
      ([, queue]) => queue.Properties.QueueName === 'cxm-dev-recording-processor-dlq',
    )!;
    for (const rule of [
      arrived,
      rules.get('cxm-dev-recording-analysis-finished')!,
      rules.get('cxm-dev-recording-transcription-finished')!,
      sweep,
    ]) {
      expect(rule.Targets).toEqual([
        expect.objectContaining({
          Arn: { 'Fn::GetAtt': [processorId, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
        }),
      ]);
    }
    // The processor's (the webhook sweeper has one too: no retries).
    const [, invokeConfig] = resources(dev, 'AWS::Lambda::EventInvokeConfig').find(
      ([, config]) => JSON.stringify(config.Properties.FunctionName) === JSON.stringify({ Ref: processorId }),
    )!;
    expect(invokeConfig.Properties).toMatchObject({
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 900,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
    });
  });
});

describe('least privilege', () => {
  const bucketArn = () => ({ 'Fn::GetAtt': [only(dev, 'AWS::S3::Bucket')[0], 'Arn'] });
  const objects = (prefix: string) => ({ 'Fn::Join': ['', [bucketArn(), `/${prefix}*`]] });

  it('the upload function may put recordings, and nothing else in the bucket', () => {
    expect(s3Statements(dev, roleOf(dev, 'cxm-dev-createRecording'))).toEqual([
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects('recordings/') },
    ]);
  });

  it("the processor reads recordings and analysis output, reads this stage's Transcribe jobs, starts jobs whose output stays in the analysis prefix, passes Transcribe's role to Transcribe only", () => {
    const roleId = roleOf(dev, 'cxm-dev-processRecording');
    const bucketRef = { Ref: only(dev, 'AWS::S3::Bucket')[0] };
    // One statement, its resources sorted: cdk.json's @aws-cdk/aws-iam:minimizePolicies merges the two grants.
    expect(s3Statements(dev, roleId)).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: [objects('analysis/'), objects('recordings/')] },
    ]);
    const statements = statementsOf(dev, roleId);
    const transcribe = statements.filter((statement) =>
      actions(statement).some((action) => action.startsWith('transcribe:')),
    );
    expect(transcribe).toEqual([
      { Effect: 'Allow', Action: 'transcribe:GetCallAnalyticsJob', Resource: jobArn('analytics') },
      { Effect: 'Allow', Action: 'transcribe:GetTranscriptionJob', Resource: jobArn('transcription-job') },
      {
        Effect: 'Allow',
        Action: 'transcribe:StartCallAnalyticsJob',
        Resource: '*',
        // The condition key this action supports (Service Authorization Reference): transcribe:OutputLocation.
        Condition: {
          StringLike: { 'transcribe:OutputLocation': { 'Fn::Join': ['', ['s3://', bucketRef, '/analysis/*']] } },
        },
      },
      {
        Effect: 'Allow',
        Action: 'transcribe:StartTranscriptionJob',
        Resource: '*',
        Condition: {
          StringEquals: { 'transcribe:OutputBucketName': bucketRef },
          StringLike: { 'transcribe:OutputKey': 'analysis/*' },
        },
      },
    ]);
    const [transcribeRoleId] = resources(dev, 'AWS::IAM::Role').find(([, role]) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('transcribe.amazonaws.com'),
    )!;
    expect(statements.filter((statement) => actions(statement).includes('iam:PassRole'))).toEqual([
      {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: { 'Fn::GetAtt': [transcribeRoleId, 'Arn'] },
        Condition: { StringEquals: { 'iam:PassedToService': 'transcribe.amazonaws.com' } },
      },
    ]);
  });

  it("Transcribe's role does what AWS's example data-access role does, and is assumed by Transcribe for this stage's jobs in this account only", () => {
    const [roleId, role] = resources(dev, 'AWS::IAM::Role').find(([, candidate]) =>
      JSON.stringify(candidate.Properties.AssumeRolePolicyDocument).includes('transcribe.amazonaws.com'),
    )!;
    expect((role.Properties.AssumeRolePolicyDocument as { Statement: Statement[] }).Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'transcribe.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: { 'aws:SourceArn': [jobArn('analytics'), jobArn('transcription-job')] },
        },
      },
    ]);
    expect(s3Statements(dev, roleId)).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects('recordings/') },
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: bucketArn() },
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects('analysis/') },
    ]);
    expect(statementsOf(dev, roleId).length).toBe(3);
  });

  it('the status function learns the deadlines and gets no bucket access; the upload function learns the limits', () => {
    const variables = (name: string) =>
      (functionNamed(dev, name)[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const { recordings } = stageConfig('dev');
    expect(variables('cxm-dev-getVocJobStatus')).toMatchObject({
      CXM_RECORDING_UPLOAD_GRACE_SECONDS: String(recordings.uploadGrace.toSeconds()),
      CXM_RECORDING_PROCESSING_WINDOW_SECONDS: String(recordings.processingWindow.toSeconds()),
    });
    expect(s3Statements(dev, roleOf(dev, 'cxm-dev-getVocJobStatus'))).toEqual([]);
    expect(variables('cxm-dev-createRecording')).toMatchObject({
      CXM_RECORDINGS_BUCKET: { Ref: only(dev, 'AWS::S3::Bucket')[0] },
      CXM_RECORDING_MAX_BYTES: String(recordings.maxUploadBytes),
      CXM_RECORDING_UPLOAD_URL_TTL_SECONDS: String(recordings.uploadUrlTtl.toSeconds()),
    });
    expect(variables('cxm-dev-processRecording')).toMatchObject({
      CXM_RECORDING_PROCESSING_WINDOW_SECONDS: String(recordings.processingWindow.toSeconds()),
    });
  });

  it('each recording setting reaches exactly the functions that read it, with the stage value', () => {
    // What the bundles project no longer reruns the recording suites for: the settings are the
    // stage's only in the function's environment, which these hold to the stage config.
    const { recordings } = stageConfig('dev');
    const value: Record<(typeof RECORDING_SETTING_ENVS)[number], string> = {
      CXM_RECORDING_MAX_BYTES: String(recordings.maxUploadBytes),
      CXM_RECORDING_UPLOAD_URL_TTL_SECONDS: String(recordings.uploadUrlTtl.toSeconds()),
      CXM_RECORDING_UPLOAD_GRACE_SECONDS: String(recordings.uploadGrace.toSeconds()),
      CXM_RECORDING_PROCESSING_WINDOW_SECONDS: String(recordings.processingWindow.toSeconds()),
      CXM_RECORDING_MAX_IN_FLIGHT: String(recordings.maxInFlightPerTenant),
      CXM_RECORDING_MAX_SECONDS: String(recordings.maxDuration.toSeconds()),
    };
    expect(Object.keys(value).sort()).toEqual([...RECORDING_SETTING_ENVS].sort());
    const settingsOf = (fn: CfnResource) => {
      const variables =
        (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      return Object.fromEntries(
        Object.entries(variables).filter(([name]) => (RECORDING_SETTING_ENVS as readonly string[]).includes(name)),
      );
    };
    const carried = Object.fromEntries(
      resources(dev, 'AWS::Lambda::Function')
        .map(([, fn]) => [fn.Properties.FunctionName as string, settingsOf(fn)] as const)
        .filter(([, settings]) => Object.keys(settings).length > 0),
    );
    const pick = (...names: (keyof typeof value)[]) => Object.fromEntries(names.map((name) => [name, value[name]]));
    expect(carried).toEqual({
      'cxm-dev-createRecording': pick(
        'CXM_RECORDING_MAX_BYTES',
        'CXM_RECORDING_UPLOAD_URL_TTL_SECONDS',
        'CXM_RECORDING_MAX_IN_FLIGHT',
      ),
      'cxm-dev-getVocJobStatus': pick('CXM_RECORDING_UPLOAD_GRACE_SECONDS', 'CXM_RECORDING_PROCESSING_WINDOW_SECONDS'),
      'cxm-dev-processRecording': pick(
        'CXM_RECORDING_UPLOAD_GRACE_SECONDS',
        'CXM_RECORDING_PROCESSING_WINDOW_SECONDS',
        'CXM_RECORDING_MAX_SECONDS',
      ),
    });
  });
});

describe('generative call summaries, only where AWS offers them', () => {
  const summariesOff = (config: StageConfig): StageConfig => ({
    ...config,
    recordings: { ...config.recordings, callSummaries: false },
  });
  const inRegion = (config: StageConfig, region: string) =>
    new CxmStack(
      new App({
        ...WITHOUT_BUILTIN_VALIDATION,
        context: { ...CDK_JSON_CONTEXT, stage: config.stage, [BUNDLING_STACKS]: [] },
      }),
      {
        config,
        env: { region },
      },
    );
  /** The template's rules but CDK's own bootstrap-version check. */
  const stageRules = (template: Template) =>
    Object.fromEntries(
      Object.entries((template.toJSON().Rules ?? {}) as Record<string, unknown>).filter(
        ([id]) => id !== 'CheckBootstrapVersion',
      ),
    );

  it('a stage of unknown region carries a rule that CloudFormation checks before it creates anything', () => {
    expect(Object.values(stageRules(dev))).toEqual([
      {
        Assertions: [
          {
            Assert: { 'Fn::Contains': [['us-east-1', 'us-west-2'], { Ref: 'AWS::Region' }] },
            AssertDescription: expect.stringContaining(
              'set recordings.callSummaries to false for this stage in infra/cdk/stage/config.ts',
            ),
          },
        ],
      },
    ]);
    const variables = (
      functionNamed(dev, 'cxm-dev-processRecording')[1].Properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(variables.CXM_RECORDING_CALL_SUMMARIES).toBe('true');
  });

  it('synthesis refuses a stage asking for summaries in a region without them, saying how to go on', () => {
    expect(() => inRegion(stageConfig('dev'), 'eu-west-1')).toThrow(
      'stage dev asks for generative call summaries (recordings.callSummaries), which Amazon Transcribe offers only in us-east-1 and us-west-2, not in eu-west-1',
    );
    expect(stageRules(Template.fromStack(inRegion(stageConfig('dev'), 'us-west-2')))).toEqual({});
  });

  it('a stage without summaries deploys anywhere and does not ask for them', () => {
    const template = Template.fromStack(inRegion(summariesOff(stageConfig('lite')), 'eu-west-1'));
    expect(stageRules(template)).toEqual({});
    const variables = (
      functionNamed(template, 'cxm-lite-processRecording')[1].Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables.CXM_RECORDING_CALL_SUMMARIES).toBe('false');
  });
});
