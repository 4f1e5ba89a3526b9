/**
 * Every AWS call the functions make is allowed by their synthesized policies, and nothing more is
 * granted than they use. The local runtime records each call with the function that made it
 * (infra/local/emulators/record-aws-calls.ts): the calls of every test file of this run (this project runs
 * after the others), and those of a journey of its own through every route and both kinds of
 * recording, so it holds alone too. Each call becomes the IAM requests a stage would authorize (its
 * local names translated to the stage's), simulated with @cloud-copilot/iam-simulate against the
 * function's role on each stage variant, with a fake account and region:
 * - every request is Allowed (a DynamoDB-reporting stage and an OpenSearch stage: a reporting list
 *   is held to its own stage's backend);
 * - a table of requests that must be denied is denied;
 * - every (action, resource) a function is granted is exercised by some recorded call, or listed
 *   in infra/cdk/unexercised-grants.ts with why it is granted all the same.
 *
 * @group iam
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { OPENAPI_DOCUMENT_OPERATION } from '#infra/cdk/constructs/api-docs';
import { VALUE_CHANGING_ACTIONS } from '#infra/cdk/constructs/webhook-sealing-key';
import { UNEXERCISED_GRANTS, type UnexercisedGrant } from '#infra/cdk/unexercised-grants';
import { runRecordingJourney, SMOKE_RECORDINGS } from '#infra/cli/smoke/run-recording-journey';
import { runSmoke } from '#infra/cli/smoke/run-smoke';
import { smokeScopes } from '#infra/cli/smoke/smoke-checks';
import { TRANSCRIBE_DATA_ACCESS } from '#infra/local/emulators/local-transcribe';
import { pointAtLocalOpenSearch } from '#infra/local/emulators/opensearch/local-opensearch';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import type { RecordedAwsCall } from '#infra/local/emulators/record-aws-calls';
import { type BoundGateway, bindGateway } from '#infra/local/serve-gateway';
import { secretName } from '#infra/stage-names';
import { fillPath, routeById, routes } from '#shared/api/route-table';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import { RECORDING_PROCESSOR } from '#shared/recording-events';
import { REPORTING_INDEXER } from '#shared/reporting/reporting-indexer';
import { allTableSpecs, physicalTableName, type TableId } from '#shared/store/table-specs';
import { WEBHOOK_DELIVERY, WEBHOOK_FAN_OUT, WEBHOOK_SEALING_KEY, WEBHOOK_SWEEP } from '#shared/webhook-functions';
import {
  FAKE_ACCOUNT,
  FAKE_REGION,
  grants,
  type IamRequest,
  iamMatch,
  iamRequests,
  type StageView,
  simulate,
  simulateAs,
  simulateTranscribeAssumingRole,
  stageView,
  tableIdOf,
} from '#test/support/aws-call-simulation';
import { callApi } from '#test/support/call-api';
import { testCliContext } from '#test/support/cli-harness';
import { runOpenSearch } from '#test/support/run-opensearch';
import { directStores } from '#test/support/serve-gateway-over';
import { loadStageTemplates, stageTemplate } from '#test/support/stage-templates';
import { TEST_INDEX_PREFIX, uniqueTenant } from '#test/support/test-api';
import { tablesOfItsOwn, workerDynamo } from '#test/support/worker-dynamo';

const VARIANTS = ['lite', 'dev'] as const;
const LIST_FUNCTIONS = new Set<string>(routes.filter((route) => 'reporting' in route.tables).map((route) => route.id));
/** Every principal whose calls are recorded: the route functions, the authorizer, the processor, the webhook functions (the sweeper's at the gateway's start), Transcribe's role. */
const PRINCIPALS: string[] = [
  ...routes.map((route) => route.id),
  'authorizer',
  RECORDING_PROCESSOR.id,
  WEBHOOK_FAN_OUT.id,
  WEBHOOK_DELIVERY.id,
  WEBHOOK_SWEEP.id,
  REPORTING_INDEXER.id,
  TRANSCRIBE_DATA_ACCESS,
];
/** Every role of ours whose grants are held to the calls: also those of functions no local test runs. */
const ROLE_HOLDERS: string[] = [...PRINCIPALS, OPENAPI_DOCUMENT_OPERATION, WEBHOOK_SEALING_KEY.id];

let calls: RecordedAwsCall[] = [];
/** Whether other files of the run recorded calls too: alone, this file's journey leaves paths of theirs unexercised. */
let wholeRun = false;

beforeAll(async () => {
  // Synthesized by the run's infra files before this project runs (alone: by this file, here).
  await loadStageTemplates(VARIANTS);
  const { endpoint, credentials } = workerDynamo();
  const tables = await tablesOfItsOwn('iam');
  pointAtLocalDynamo({ endpoint, credentials }, tables);
  // The lists search OpenSearch, as on the dev stage: the journey's rows reach it through the indexer.
  pointAtLocalOpenSearch(runOpenSearch().endpoint, TEST_INDEX_PREFIX);
  const direct = directStores({ endpoint, credentials }, tables);
  // A delivery a run before left pending, its task lost two hours ago: the sweeper's run at the
  // start queues it (its endpoint is gone, so the delivery function stops it).
  const swept = { endpointId: 'ep_iam-swept', at: new Date().toISOString(), messageId: 'msg_iam-swept' };
  await direct.webhookDeliveries.record(
    uniqueTenant('iam-swept'),
    { ...swept, type: 'note.created', body: '{}', status: 'pending', attempts: 0 },
    Date.now() - 2 * 3_600_000,
  );
  const gateway: BoundGateway = await bindGateway(0);
  // The streams read as a stage's mappings read them: the journey's note becomes a delivery, its rows
  // documents; and the sweeper runs once at the start, as npm start's does.
  await gateway.serve({ authCacheTtlSeconds: 0, webhookStreams: 'read' });
  try {
    const tenant = uniqueTenant('iam');
    const { key } = await direct.createKey([tenant], smokeScopes());
    const { report } = await runSmoke({ kind: 'given-key', url: gateway.url, key, tenant }, 15_000, testCliContext());
    expect(report.checks.filter((check) => check.result === 'fail')).toEqual([]);
    // The smoke check of a registration is a refusal, which reaches no table: a registration that
    // does, then a note, which the webhook functions turn into a delivery and its first attempt (to
    // a port nothing listens on: refused, so the next attempt is queued too).
    const registered = await callApi(
      gateway.url,
      'POST',
      fillPath(routeById('createWebhookEndpoint'), { tenantId: tenant }),
      key,
      { url: 'http://127.0.0.1:9/iam', events: ['note.created'] },
    );
    expect(registered.status).toBe(201);
    await direct.conversations.putConversation(tenant, conversationWithDefaults({ id: 'iam-conv' }));
    const note = await callApi(
      gateway.url,
      'POST',
      fillPath(routeById('addInternalNote'), { tenantId: tenant, conversationId: 'iam-conv' }),
      key,
      { body: 'for the webhook functions' },
    );
    expect(note.status).toBe(201);
    const deliveriesPath = fillPath(routeById('listWebhookDeliveries'), {
      tenantId: tenant,
      endpointId: (registered.json as { id: string }).id,
    });
    for (let waited = 0; ; waited += 100) {
      const { json } = await callApi(gateway.url, 'GET', deliveriesPath, key);
      if ((json as { data: { attempts: number }[] }).data[0]?.attempts) break;
      if (waited > 20_000) throw new Error('no attempt of the webhook delivery within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const target = { baseUrl: gateway.url, key, tenant, timeoutMs: 15_000 };
    for (const recording of SMOKE_RECORDINGS)
      expect((await runRecordingJourney(target, 'iam', 30_000, recording)).reason).toBeNull();
    // A job whose upload URL ran out a day ago: reading its status fails it (the status function's
    // own write), whether or not a sweep or another file's poll got to such a job first in this run.
    const overdue = { id: 'iam-overdue', status: 'started' as const, started: Date.now() - 90_000_000 };
    const upload = { contentType: 'audio/wav', sizeBytes: 44, fileName: 'a.wav', uploadExpiresAt: overdue.started };
    await direct.vocJobs.create(
      tenant,
      { ...overdue, file: `recordings/${tenant}/late.wav`, recordingId: 'rec-iam-overdue', upload },
      { inFlightLimit: 100 },
    );
    const status = await callApi(
      gateway.url,
      'GET',
      fillPath(routeById('getVocJobStatus'), { tenantId: tenant, jobId: overdue.id }),
      key,
    );
    expect(status.json).toMatchObject({ id: overdue.id, status: 'failed' });
    await gateway.eventsSettled();
    await gateway.streamsCaughtUp();
  } finally {
    await gateway.close();
    direct.destroy();
  }
  const folder = inject('awsCallLog');
  const logs = readdirSync(folder).filter((file) => file.endsWith('.jsonl'));
  wholeRun = logs.some((file) => file !== `calls-${process.pid}.jsonl`);
  calls = logs
    .flatMap((file) => readFileSync(join(folder, file), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as RecordedAwsCall);
}, 180_000);

/** A reporting list reads its own stage's backend: DynamoDB's index on one, OpenSearch on the other. */
function appliesTo(call: RecordedAwsCall, view: StageView): boolean {
  if (call.service === 'es') return view.reportingBackend === 'opensearch';
  const table = tableIdOf(String(call.input.TableName ?? ''));
  if (LIST_FUNCTIONS.has(call.principal) && (table === 'reporting' || table === 'reportingCounts'))
    return view.reportingBackend === 'dynamodb';
  return true;
}

/** Each distinct request of the recorded calls a principal makes on a stage. */
function requestsOn(view: StageView): Map<string, { principal: string; roleId: string; request: IamRequest }> {
  const distinct = new Map<string, { principal: string; roleId: string; request: IamRequest }>();
  for (const call of calls) {
    const roleId = view.roleOf(call.principal);
    if (!roleId || !appliesTo(call, view)) continue;
    for (const request of iamRequests(call, view))
      distinct.set(JSON.stringify([call.principal, request]), { principal: call.principal, roleId, request });
  }
  return distinct;
}

interface HeldGrant {
  principal: string;
  action: string;
  /** The resource with the stage's name written `<stage>`. */
  resource: string;
}

/** Every (action, resource) a role holds that no recorded call of its principal exercised on `view`'s stage. */
function unexercisedOn(view: StageView): HeldGrant[] {
  const exercised = [...requestsOn(view).values()];
  const unexercised: HeldGrant[] = [];
  for (const principal of ROLE_HOLDERS) {
    const roleId = view.roleOf(principal);
    if (!roleId) continue;
    for (const grant of grants(view.identityPolicies(roleId))) {
      const used = exercised.some(
        ({ principal: who, request }) =>
          who === principal && iamMatch(grant.action, request.action) && iamMatch(grant.resource, request.resource),
      );
      if (!used)
        unexercised.push({
          principal,
          action: grant.action,
          resource: grant.resource.replaceAll(view.stage, '<stage>'),
        });
    }
  }
  return unexercised;
}

const justifies = (entry: UnexercisedGrant, grant: HeldGrant) =>
  iamMatch(entry.principal, grant.principal) &&
  entry.action === grant.action &&
  iamMatch(entry.resource, grant.resource);

const JOB = '01KB2D3E4F5G6H7J8K9M0N1P2Q';
const SECURE = { 'aws:SecureTransport': 'true' };

describe('the recorded calls', () => {
  it("cover every function and Transcribe's data-access role", () => {
    expect(new Set(calls.map((call) => call.principal))).toEqual(
      new Set(PRINCIPALS.filter((principal) => principal !== 'getOpenApiDocument')),
    );
  });
});

describe.each(VARIANTS)('on a %s stage', (variant) => {
  let view: StageView;
  beforeAll(() => {
    view = stageView(stageTemplate(variant));
  });

  it('every call each function makes is allowed by its role', async () => {
    const denied: string[] = [];
    for (const { principal, roleId, request } of requestsOn(view).values()) {
      const { verdict, detail } = await simulate(view, roleId, request);
      if (verdict !== 'Allowed')
        denied.push(
          `${principal}: ${request.action} on ${request.resource} ${JSON.stringify(request.context)} -> ${verdict} ${detail}`,
        );
    }
    expect(denied).toEqual([]);
  });

  it('every permission a role holds is exercised by a recorded call, or justified (with the whole run: npm test)', (context) => {
    if (!wholeRun) context.skip('run alone: only the whole run (npm test) exercises every path');
    expect(unexercisedOn(view).filter((grant) => !UNEXERCISED_GRANTS.some((entry) => justifies(entry, grant)))).toEqual(
      [],
    );
  });

  it('the denials that must hold, hold', async () => {
    const role = (principal: string) => view.roleOf(principal)!;
    const table = (stage: string, id: TableId) =>
      `arn:aws:dynamodb:${FAKE_REGION}:${FAKE_ACCOUNT}:table/${physicalTableName(stage, id)}`;
    const object = (key: string) => `arn:aws:s3:::${view.bucketName}/${key}`;
    const output = (location: string) => ({ 'transcribe:OutputLocation': location });
    const mustDeny: [string, string, IamRequest][] = [
      [
        "Transcribe's role cannot write a recording",
        TRANSCRIBE_DATA_ACCESS,
        { action: 's3:PutObject', resource: object(`recordings/acme/${JOB}.wav`), context: SECURE },
      ],
      [
        "Transcribe's role cannot delete one",
        TRANSCRIBE_DATA_ACCESS,
        { action: 's3:DeleteObject', resource: object(`recordings/acme/${JOB}.wav`), context: SECURE },
      ],
      [
        "Transcribe's role cannot read another bucket",
        TRANSCRIBE_DATA_ACCESS,
        { action: 's3:GetObject', resource: `arn:aws:s3:::other-bucket/recordings/acme/${JOB}.wav`, context: SECURE },
      ],
      [
        'the status function cannot put a job',
        'getVocJobStatus',
        { action: 'dynamodb:PutItem', resource: table(view.stage, 'vocJobs'), context: {} },
      ],
      [
        'the status function cannot start an analysis',
        'getVocJobStatus',
        {
          action: 'transcribe:StartCallAnalyticsJob',
          resource: '*',
          context: output(`s3://${view.bucketName}/analysis/x/`),
        },
      ],
      [
        'an upload that is not a write-once (no If-None-Match: *) is refused by the bucket',
        'createRecording',
        { action: 's3:PutObject', resource: object(`recordings/acme/${JOB}.wav`), context: SECURE },
      ],
      [
        'an upload with another If-None-Match is refused by the bucket',
        'createRecording',
        {
          action: 's3:PutObject',
          resource: object(`recordings/acme/${JOB}.wav`),
          context: { ...SECURE, 's3:if-none-match': '"abc"' },
        },
      ],
      [
        'the upload function cannot write analysis output',
        'createRecording',
        {
          action: 's3:PutObject',
          resource: object(`analysis/acme/${JOB}/out.json`),
          context: { ...SECURE, 's3:if-none-match': '*' },
        },
      ],
      [
        'the upload function cannot write outside recordings/',
        'createRecording',
        {
          action: 's3:PutObject',
          resource: object('elsewhere/x.wav'),
          context: { ...SECURE, 's3:if-none-match': '*' },
        },
      ],
      [
        'the upload function cannot read a recording',
        'createRecording',
        { action: 's3:GetObject', resource: object(`recordings/acme/${JOB}.wav`), context: SECURE },
      ],
      [
        'the processor cannot send analysis output to another bucket',
        'processRecording',
        { action: 'transcribe:StartCallAnalyticsJob', resource: '*', context: output('s3://other-bucket/analysis/x/') },
      ],
      [
        'the processor cannot send analysis output among the recordings',
        'processRecording',
        {
          action: 'transcribe:StartCallAnalyticsJob',
          resource: '*',
          context: output(`s3://${view.bucketName}/recordings/x/`),
        },
      ],
      [
        'the processor cannot start a Call Analytics job that names no output',
        'processRecording',
        { action: 'transcribe:StartCallAnalyticsJob', resource: '*', context: {} },
      ],
      [
        'the processor cannot send a transcript to another bucket',
        'processRecording',
        {
          action: 'transcribe:StartTranscriptionJob',
          resource: '*',
          context: { 'transcribe:OutputBucketName': 'other-bucket', 'transcribe:OutputKey': 'analysis/x/' },
        },
      ],
      [
        'the processor cannot start a transcription that names no output',
        'processRecording',
        { action: 'transcribe:StartTranscriptionJob', resource: '*', context: {} },
      ],
      [
        'the processor cannot pass the role to another service',
        'processRecording',
        {
          action: 'iam:PassRole',
          resource: view.transcribeRoleArn,
          context: { 'iam:PassedToService': 'lambda.amazonaws.com' },
        },
      ],
      [
        "the processor cannot read another stage's analysis job",
        'processRecording',
        {
          action: 'transcribe:GetCallAnalyticsJob',
          resource: `arn:aws:transcribe:${FAKE_REGION}:${FAKE_ACCOUNT}:analytics/cxm.other.${JOB}.acme`,
          context: {},
        },
      ],
      ...PRINCIPALS.filter((principal) => principal !== TRANSCRIBE_DATA_ACCESS && view.roleOf(principal)).flatMap(
        (principal) =>
          allTableSpecs.map((spec): [string, string, IamRequest] => [
            `${principal} cannot read another stage's ${spec.id} table`,
            principal,
            { action: 'dynamodb:GetItem', resource: table('other', spec.id), context: {} },
          ]),
      ),
    ];
    const allowed: string[] = [];
    for (const [why, principal, request] of mustDeny) {
      const { verdict, detail } = await simulate(view, role(principal), request);
      if (verdict !== 'ImplicitlyDenied' && verdict !== 'ExplicitlyDenied')
        allowed.push(`${why}: ${verdict} ${detail}`);
    }
    expect(allowed).toEqual([]);
  });

  it("no one but the sealing key resource changes the webhook secret key's value, whatever their own policies allow", async () => {
    const secret = `arn:aws:secretsmanager:${FAKE_REGION}:${FAKE_ACCOUNT}:secret:${secretName(view.stage, 'webhookSecretKey')}-AbCdEf`;
    const request = (action: string): IamRequest => ({ action, resource: secret, context: {} });
    const operator = {
      principal: `arn:aws:iam::${FAKE_ACCOUNT}:role/operator`,
      identityPolicies: [
        {
          name: 'secrets-admin',
          policy: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: 'secretsmanager:*', Resource: '*' }],
          },
        },
      ],
    };
    const verdicts: Record<string, string> = {};
    for (const action of VALUE_CHANGING_ACTIONS)
      verdicts[action] = (await simulateAs(view, operator, request(action))).verdict;
    expect(verdicts).toEqual(Object.fromEntries(VALUE_CHANGING_ACTIONS.map((action) => [action, 'ExplicitlyDenied'])));
    // The policy takes nothing else from anyone: the operator still reads it, and the resource still puts.
    expect((await simulateAs(view, operator, request('secretsmanager:GetSecretValue'))).verdict).toBe('Allowed');
    const resourceRole = view.roleOf(WEBHOOK_SEALING_KEY.id)!;
    expect((await simulate(view, resourceRole, request('secretsmanager:PutSecretValue'))).verdict).toBe('Allowed');
  });

  it("Transcribe assumes its data-access role for this stage's jobs in this account only (aws:SourceArn, aws:SourceAccount)", async () => {
    const job = (type: string, stage: string) =>
      `arn:aws:transcribe:${FAKE_REGION}:${FAKE_ACCOUNT}:${type}/cxm.${stage}.${JOB}.acme`;
    expect((await simulateTranscribeAssumingRole(view, job('analytics', view.stage))).verdict).toBe('Allowed');
    expect((await simulateTranscribeAssumingRole(view, job('transcription-job', view.stage))).verdict).toBe('Allowed');
    expect((await simulateTranscribeAssumingRole(view, job('analytics', 'other'))).verdict).toBe('ImplicitlyDenied');
    expect((await simulateTranscribeAssumingRole(view, job('language-model', view.stage))).verdict).toBe(
      'ImplicitlyDenied',
    );
    expect((await simulateTranscribeAssumingRole(view, job('analytics', view.stage), '999999999999')).verdict).toBe(
      'ImplicitlyDenied',
    );
  });
});

describe('the list of grants not exercised', () => {
  it('names only grants some role holds: a grant removed takes its entry with it', () => {
    const held = VARIANTS.flatMap((variant) => {
      const view = stageView(stageTemplate(variant));
      return ROLE_HOLDERS.flatMap((principal) => {
        const roleId = view.roleOf(principal);
        return roleId
          ? grants(view.identityPolicies(roleId)).map((grant) => ({
              principal,
              action: grant.action,
              resource: grant.resource.replaceAll(view.stage, '<stage>'),
            }))
          : [];
      });
    });
    expect(
      UNEXERCISED_GRANTS.filter((entry) => !held.some((grant) => justifies(entry, grant))).map(
        (entry) => `${entry.principal} ${entry.action} ${entry.resource}`,
      ),
    ).toEqual([]);
  });
});
