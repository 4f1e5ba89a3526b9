/**
 * `cxm preflight --stage <name>` as an operator runs it (in this process:
 * test/support/cli-harness.ts), with the real SDK clients pointed (AWS_ENDPOINT_URL_<SERVICE>) at
 * recorded answers over real HTTP: Lambda, CloudWatch Logs and Transcribe from
 * test/support/aws-answers/ through a replay, API Gateway from its fake (its GetAccount recorded,
 * its API keys listed in pages as the service does). The answers are written after each API's
 * reference, not captured from an account. Each case starts from a healthy account and changes one
 * thing: what the table says, what to do, and the exit code.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callSummariesRefusal } from '#infra/cdk/stage/call-summary-regions';
import { concurrencyReservations } from '#infra/cdk/stage/concurrency-reservations';
import { stageConfig } from '#infra/cdk/stage/config';
import { searchLogPolicyName } from '#infra/search-log-policy-name';
import { cxm } from '#test/support/cli-harness';
import { startFakeApiGateway } from '#test/support/fake-api-gateway';
import { type RecordedAnswer, recordedAnswer, recordedPages } from '#test/support/recorded-aws-answer';
import { startAwsReplay } from '#test/support/replay-aws-answers';

/** The account a case runs against, by fixture name; each case changes what it is about. */
interface Account {
  lambdaSettings: string;
  /** GetFunctionConcurrency's answer per function name; any other function is not found. */
  reservedNow: Record<string, string>;
  apiGatewayAccount: string;
  logsPolicies: string;
  transcribe: string;
  apiKeys: number;
  /** Answers that replace the account's, by route (a refusal). */
  replaced: Record<string, RecordedAnswer>;
}

const HEALTHY: Account = {
  lambdaSettings: 'lambda-account-settings-default-quota',
  reservedNow: {},
  apiGatewayAccount: 'api-gateway-account-with-cloudwatch-role',
  logsPolicies: 'logs-resource-policies-three',
  transcribe: 'transcribe-call-analytics-categories',
  apiKeys: 12,
  replaced: {},
};

const CHECK_NAMES = [
  'Lambda concurrency',
  'API Gateway CloudWatch role',
  'CloudWatch Logs resource policies',
  'Amazon Transcribe',
  'Generative call summaries',
  'API Gateway API keys',
];
const GET_ACCOUNT_SETTINGS = 'GET /2016-08-19/account-settings';
const DESCRIBE_RESOURCE_POLICIES = 'Logs_20140328.DescribeResourcePolicies';
const LIST_CATEGORIES = 'Transcribe.ListCallAnalyticsCategories';
const NO_AWS_FILES = join(tmpdir(), 'cxm-preflight-no-such-aws-file');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The routes the replay was asked for, in order. */
  calls: { route: string; body: unknown }[];
}

/** `cxm preflight --stage <stage> <args>` against `account`, in us-east-1 unless `env` says otherwise. */
async function preflight(
  stage: string,
  account: Partial<Account>,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<Run> {
  const { lambdaSettings, reservedNow, apiGatewayAccount, logsPolicies, transcribe, apiKeys, replaced } = {
    ...HEALTHY,
    ...account,
  };
  const concurrency = (id: string) => `GET /2019-09-30/functions/cxm-${stage}-${id}/concurrency`;
  const replay = await startAwsReplay({
    [GET_ACCOUNT_SETTINGS]: recordedAnswer(lambdaSettings),
    ...Object.fromEntries(
      concurrencyReservations(stageConfig(stage)).map(({ functionId: id }) => [
        concurrency(id),
        recordedAnswer(reservedNow[`cxm-${stage}-${id}`] ?? 'lambda-function-not-found'),
      ]),
    ),
    [DESCRIBE_RESOURCE_POLICIES]: recordedPages(logsPolicies),
    [LIST_CATEGORIES]: recordedAnswer(transcribe),
    ...replaced,
  });
  const apiGateway = await startFakeApiGateway([], {
    recorded: { 'GET /account': recordedAnswer(apiGatewayAccount), ...replaced },
  });
  for (let i = 0; i < apiKeys; i++) apiGateway.addApiKey({ name: `cxm-${stage}-tenant-t${i}` });
  try {
    const result = await cxm(['preflight', '--stage', stage, ...args], {
      AWS_ENDPOINT_URL_LAMBDA: replay.endpoint,
      AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: replay.endpoint,
      AWS_ENDPOINT_URL_TRANSCRIBE: replay.endpoint,
      AWS_ENDPOINT_URL_API_GATEWAY: apiGateway.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      // Nothing of this machine's own AWS setup: the case's environment is all there is.
      AWS_CONFIG_FILE: NO_AWS_FILES,
      AWS_SHARED_CREDENTIALS_FILE: NO_AWS_FILES,
      AWS_PROFILE: undefined,
      ...env,
    });
    return { ...result, calls: replay.calls };
  } finally {
    await Promise.all([replay.close(), apiGateway.close()]);
  }
}

/** A check's row of the table: its finding and what it found. */
function row(stdout: string, name: string): { finding: string; found: string } {
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(`${name}  `));
  expect(line, `${name} in:\n${stdout}`).toBeDefined();
  const [, finding, found] = line!.split(/ {2,}/);
  return { finding: finding!, found: found ?? '' };
}

/** The check's line under "What to do", and the commands indented below it. */
function whatToDo(stdout: string, name: string): { line: string; commands: string[] } {
  const lines = stdout.split('\n');
  const at = lines.findIndex((line) => line.startsWith(`- ${name} (`));
  expect(at, `what to do about ${name} in:\n${stdout}`).toBeGreaterThan(-1);
  const commands: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith('    ')) break;
    commands.push(line.trim());
  }
  return { line: lines[at]!, commands };
}

const findings = (stdout: string) => Object.fromEntries(CHECK_NAMES.map((name) => [name, row(stdout, name).finding]));
const allOk = Object.fromEntries(CHECK_NAMES.map((name) => [name, 'ok']));

describe('cxm preflight', () => {
  it('a healthy account: every check ok, nothing to do, exit 0; the stage reading its functions by name and Transcribe asked for one category', async () => {
    const { code, stdout, stderr, calls } = await preflight('dev', {});
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe('Preflight of stage dev in us-east-1');
    expect(findings(stdout)).toEqual(allOk);
    expect(row(stdout, 'Lambda concurrency').found).toBe(
      'quota 1000, 1000 unreserved; the stage reserves 62 (authorizer 50, getOpenApiDocument 2, processRecording 10), leaving 938 unreserved (Lambda keeps 100)',
    );
    expect(row(stdout, 'API Gateway CloudWatch role').found).toBe(
      'cloudwatchRoleArn arn:aws:iam::123456789012:role/apigateway-cloudwatch-logs',
    );
    expect(row(stdout, 'CloudWatch Logs resource policies').found).toBe(
      `3 of 10 used in us-east-1; the stage adds ${searchLogPolicyName('dev')} for its search domain's logs, making 4`,
    );
    expect(row(stdout, 'API Gateway API keys').found).toMatch(/^12 of 10000 used in us-east-1, 9988 left/);
    expect(stdout).toContain('6 ok, 0 warn, 0 blocked');
    expect(stdout).not.toContain('What to do');
    const routes = calls.map((call) => call.route);
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /2019-09-30/functions/cxm-dev-authorizer/concurrency',
        'GET /2019-09-30/functions/cxm-dev-getOpenApiDocument/concurrency',
      ]),
    );
    expect(calls.find((call) => call.route === LIST_CATEGORIES)?.body).toEqual({ MaxResults: 1 });
  });

  it('a new account with a concurrency quota of 10: blocked, with the quota to ask for or the settings to drop, exit 1', async () => {
    const { code, stdout, stderr } = await preflight('dev', { lambdaSettings: 'lambda-account-settings-new-account' });
    expect(code).toBe(1);
    expect(findings(stdout)).toEqual({ ...allOk, 'Lambda concurrency': 'blocked' });
    expect(row(stdout, 'Lambda concurrency').found).toBe(
      'quota 10, 10 unreserved; the stage reserves 62 (authorizer 50, getOpenApiDocument 2, processRecording 10), leaving -52 unreserved (Lambda keeps 100)',
    );
    expect(whatToDo(stdout, 'Lambda concurrency').line).toBe(
      '- Lambda concurrency (blocked): ask for a Lambda "Concurrent executions" quota of at least 162 in Service Quotas (now 10: new accounts often start at 10 or 50), ' +
        'or set edge.authorizerReservedConcurrency, edge.documentReservedConcurrency, and recordings.processorReservedConcurrency of stage dev to undefined in infra/cdk/stage/config.ts',
    );
    expect(stdout).toContain('5 ok, 0 warn, 1 blocked');
    expect(stderr.trim()).toBe(
      'cxm: 1 of 6 checks block the deploy of stage dev in us-east-1; fix them and run cxm preflight again',
    );
  });

  it("a redeploy: the stage's reservations, already taken from the unreserved count, are counted back (and its Logs policy once): ok; the same account before a first deploy is blocked", async () => {
    const [deployed, first] = await Promise.all([
      preflight('dev', {
        lambdaSettings: 'lambda-account-settings-quota-200-62-reserved',
        reservedNow: {
          'cxm-dev-authorizer': 'lambda-function-concurrency-50',
          'cxm-dev-getOpenApiDocument': 'lambda-function-concurrency-2',
          'cxm-dev-processRecording': 'lambda-function-concurrency-10',
        },
        logsPolicies: 'logs-resource-policies-ten-with-dev-search',
      }),
      preflight('dev', { lambdaSettings: 'lambda-account-settings-quota-200-62-reserved' }),
    ]);
    expect(deployed.stderr).toBe('');
    expect(deployed.code).toBe(0);
    expect(findings(deployed.stdout)).toEqual(allOk);
    expect(row(deployed.stdout, 'Lambda concurrency').found).toBe(
      'quota 200, 138 unreserved; the stage reserves 62 (authorizer 50, getOpenApiDocument 2, processRecording 10), 62 of them already (deployed), leaving 138 unreserved (Lambda keeps 100)',
    );
    expect(row(deployed.stdout, 'CloudWatch Logs resource policies').found).toBe(
      `10 of 10 used in us-east-1, the stage's own ${searchLogPolicyName('dev')} (its search domain's logs) among them`,
    );

    expect(first.code).toBe(1);
    expect(row(first.stdout, 'Lambda concurrency')).toEqual({
      finding: 'blocked',
      found: expect.stringContaining('leaving 76 unreserved'),
    });
    expect(whatToDo(first.stdout, 'Lambda concurrency').line).toContain(
      'quota of at least 224 in Service Quotas (now 200),',
    );
  });

  it("no CloudWatch role for API Gateway: blocked, with the commands of infra/README.md's prerequisites for this region", async () => {
    const { code, stdout } = await preflight('dev', {
      apiGatewayAccount: 'api-gateway-account-without-cloudwatch-role',
    });
    expect(code).toBe(1);
    expect(findings(stdout)).toEqual({ ...allOk, 'API Gateway CloudWatch role': 'blocked' });
    expect(row(stdout, 'API Gateway CloudWatch role').found).toBe(
      "API Gateway has no CloudWatch Logs role in us-east-1: the stage's access logs make the deploy fail",
    );
    const { line, commands } = whatToDo(stdout, 'API Gateway CloudWatch role');
    expect(line).toContain('create the role and give it to API Gateway (infra/README.md, "Prerequisites"');
    expect(commands).toHaveLength(3);
    expect(commands[0]).toMatch(/^aws iam create-role --role-name apigateway-cloudwatch-logs /);
    expect(commands[1]).toMatch(
      /^aws iam attach-role-policy --role-name apigateway-cloudwatch-logs --policy-arn .*AmazonAPIGatewayPushToCloudWatchLogs$/,
    );
    expect(commands[2]).toMatch(
      /^aws apigateway update-account --region us-east-1 --patch-operations "op=replace,path=\/cloudwatchRoleArn,value=arn:aws:iam::/,
    );
    // The README shows the same commands, for any region.
    const readme = readFileSync(new URL('../../infra/README.md', import.meta.url), 'utf8');
    for (const command of commands.map((printed) => printed.replace('--region us-east-1', '--region <region>')))
      expect(readme.includes(command), command).toBe(true);
  });

  it('10 Logs resource policies: an OpenSearch stage, which adds one, is blocked; a DynamoDB stage (lite), which adds none, is ok', async () => {
    const [search, lite] = await Promise.all([
      preflight('dev', { logsPolicies: 'logs-resource-policies-ten' }),
      preflight('lite', { logsPolicies: 'logs-resource-policies-ten' }),
    ]);
    expect(search.code).toBe(1);
    expect(findings(search.stdout)).toEqual({ ...allOk, 'CloudWatch Logs resource policies': 'blocked' });
    expect(row(search.stdout, 'CloudWatch Logs resource policies').found).toBe(
      `10 of 10 used in us-east-1; the stage adds ${searchLogPolicyName('dev')} for its search domain's logs, making 11`,
    );
    const { line, commands } = whatToDo(search.stdout, 'CloudWatch Logs resource policies');
    expect(line).toContain('the 10 cannot be raised: delete a policy nothing uses any more');
    expect(commands).toEqual([
      "aws logs describe-resource-policies --region us-east-1 --query 'resourcePolicies[].policyName'",
      'aws logs delete-resource-policy --region us-east-1 --policy-name <name>',
    ]);
    // Both pages of the listing were read: the second asked for with the first's token.
    expect(search.calls.filter((call) => call.route === DESCRIBE_RESOURCE_POLICIES).map((call) => call.body)).toEqual([
      { limit: 50 },
      { limit: 50, nextToken: expect.any(String) },
    ]);

    expect(lite.code).toBe(0);
    expect(findings(lite.stdout)).toEqual(allOk);
    expect(row(lite.stdout, 'CloudWatch Logs resource policies').found).toBe(
      '10 of 10 used in us-east-1; the stage adds none (its reporting reads DynamoDB: no search domain)',
    );
  });

  it('generative call summaries asked for in eu-west-1 (--region over AWS_REGION): blocked, with the sentence the stack refuses the stage with', async () => {
    const { code, stdout } = await preflight('dev', {}, ['--region', 'eu-west-1']);
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toBe('Preflight of stage dev in eu-west-1');
    expect(findings(stdout)).toEqual({ ...allOk, 'Generative call summaries': 'blocked' });
    expect(row(stdout, 'Generative call summaries').found).toBe(
      'asked for (recordings.callSummaries), offered only in us-east-1 and us-west-2, not in eu-west-1',
    );
    expect(whatToDo(stdout, 'Generative call summaries').line).toBe(
      `- Generative call summaries (blocked): ${callSummariesRefusal('dev', 'eu-west-1')}`,
    );
    expect(row(stdout, 'Amazon Transcribe').found).toBe('Call Analytics answers in eu-west-1');
  });

  it('Amazon Transcribe without an endpoint in the region is blocked as that; credentials it does not take are reported as that, not as a missing feature', async () => {
    const [unknown, unrecognized] = await Promise.all([
      preflight('dev', {}, [], { AWS_ENDPOINT_URL_TRANSCRIBE: 'http://transcribe.eu-nowhere-1.invalid' }),
      preflight('dev', { transcribe: 'transcribe-unrecognized-client' }),
    ]);
    expect(unknown.code).toBe(1);
    expect(findings(unknown.stdout)).toEqual({ ...allOk, 'Amazon Transcribe': 'blocked' });
    expect(row(unknown.stdout, 'Amazon Transcribe').found).toBe(
      "no Amazon Transcribe endpoint in us-east-1 (transcribe.eu-nowhere-1.invalid does not resolve): the stage's VOC recordings could never be analysed",
    );

    expect(unrecognized.code).toBe(0);
    expect(findings(unrecognized.stdout)).toEqual({ ...allOk, 'Amazon Transcribe': 'warn' });
    const { found } = row(unrecognized.stdout, 'Amazon Transcribe');
    expect(found).toBe(
      'not checked: AWS did not accept your credentials for ListCallAnalyticsCategories (UnrecognizedClientException: The security token included in the request is invalid.)',
    );
    expect(whatToDo(unrecognized.stdout, 'Amazon Transcribe').line).toContain(
      'in an opt-in region, enable the region for the account',
    );
  });

  it('API keys: 9990 of the 10000 used is a warning (exit 0), all 10000 blocks (exit 1); both say the quota cannot be raised', async () => {
    const [low, none] = await Promise.all([preflight('dev', { apiKeys: 9990 }), preflight('dev', { apiKeys: 10_000 })]);
    expect(low.code).toBe(0);
    expect(findings(low.stdout)).toEqual({ ...allOk, 'API Gateway API keys': 'warn' });
    expect(row(low.stdout, 'API Gateway API keys').found).toMatch(/^9990 of 10000 used in us-east-1, 10 left/);
    expect(whatToDo(low.stdout, 'API Gateway API keys').line).toContain(
      "the 10000 cannot be raised: delete keys no longer needed ('cxm keys sync --stage dev'",
    );

    expect(none.code).toBe(1);
    expect(findings(none.stdout)).toEqual({ ...allOk, 'API Gateway API keys': 'blocked' });
    expect(row(none.stdout, 'API Gateway API keys').found).toMatch(/^10000 of 10000 used in us-east-1, 0 left/);
  });

  it.each([
    [
      'Lambda concurrency',
      GET_ACCOUNT_SETTINGS,
      'lambda-access-denied',
      'GetAccountSettings',
      'lambda:GetAccountSettings',
    ],
    [
      'CloudWatch Logs resource policies',
      DESCRIBE_RESOURCE_POLICIES,
      'logs-access-denied',
      'DescribeResourcePolicies',
      'logs:DescribeResourcePolicies',
    ],
  ])(
    'one call refused (AccessDenied): the %s row names the action to grant, every other check still runs',
    async (name, route, refusal, operation, action) => {
      const { code, stdout } = await preflight('dev', { replaced: { [route]: recordedAnswer(refusal) } }, []);
      expect(code).toBe(0);
      expect(findings(stdout)).toEqual({ ...allOk, [name]: 'warn' });
      expect(row(stdout, name).found).toBe(`not checked: AWS refused ${operation} (AccessDeniedException)`);
      expect(whatToDo(stdout, name).line).toBe(
        `- ${name} (warn): grant your credentials ${action}, then run cxm preflight again`,
      );
    },
  );

  it('--json: one object {stage, region, checks, ok, warn, blocked} on stdout, each check with its finding, fix, commands, needs and figures', async () => {
    const account = {
      lambdaSettings: 'lambda-account-settings-new-account',
      replaced: { [DESCRIBE_RESOURCE_POLICIES]: recordedAnswer('logs-access-denied') },
    };
    const { code, stdout } = await preflight('dev', account, ['--json']);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { checks: Record<string, unknown>[] } & Record<string, unknown>;
    expect(Object.keys(report).sort()).toEqual(['blocked', 'checks', 'ok', 'region', 'stage', 'warn']);
    expect(report).toMatchObject({ stage: 'dev', region: 'us-east-1', ok: 4, warn: 1, blocked: 1 });
    expect(report.checks.map((check) => check.id)).toEqual([
      'lambda-concurrency',
      'api-gateway-cloudwatch-role',
      'logs-resource-policies',
      'transcribe',
      'call-summaries',
      'api-keys',
    ]);
    for (const check of report.checks)
      expect(Object.keys(check).sort()).toEqual([
        'checked',
        'commands',
        'detail',
        'figures',
        'finding',
        'fix',
        'id',
        'name',
        'needs',
      ]);
    const [concurrency, role, policies, , , keys] = report.checks;
    expect(concurrency).toMatchObject({
      finding: 'blocked',
      fix: expect.stringContaining('at least 162'),
      needs: null,
      checked: true,
      figures: { quota: 10, unreserved: 10, stageReserves: 62, stageHoldsNow: 0, unreservedAfter: -52 },
    });
    expect(role).toMatchObject({ finding: 'ok', fix: null, commands: [], needs: null });
    expect(policies).toMatchObject({
      finding: 'warn',
      needs: 'logs:DescribeResourcePolicies',
      checked: false,
      figures: {},
    });
    expect(keys).toMatchObject({ finding: 'ok', figures: { used: 12, quota: 10_000, left: 9988 } });
  });

  it('nothing answering at all (no network, a mistyped region): the table says not checked, one line says what to check, exit 1', async () => {
    const nowhere = (service: string) => `http://${service}.eu-wst-1.invalid`;
    const { code, stdout, stderr } = await preflight('dev', {}, [], {
      AWS_ENDPOINT_URL_LAMBDA: nowhere('lambda'),
      AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: nowhere('logs'),
      AWS_ENDPOINT_URL_TRANSCRIBE: nowhere('transcribe'),
      AWS_ENDPOINT_URL_API_GATEWAY: nowhere('apigateway'),
    });
    expect(code).toBe(1);
    expect(row(stdout, 'Lambda concurrency')).toEqual({
      finding: 'warn',
      found: 'not checked: GetAccountSettings found no answer at lambda.eu-wst-1.invalid (ENOTFOUND)',
    });
    expect(stderr.trim()).toBe(
      'cxm: no check could read the account in us-east-1: not checked: GetAccountSettings found no answer at lambda.eu-wst-1.invalid (ENOTFOUND); ' +
        'check the network and the region (AWS_REGION, --region), then run cxm preflight again',
    );
  });

  it('without a region, one line says how to give one, and nothing is read', async () => {
    const { code, stdout, stderr, calls } = await preflight('dev', {}, [], { AWS_REGION: undefined });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(
      'cxm: no AWS region: set AWS_REGION (or a profile with a region), or give --region <region>: the one the stage is to be deployed to',
    );
    expect(calls).toEqual([]);
  });
});
