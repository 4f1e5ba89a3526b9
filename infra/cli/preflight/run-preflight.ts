/**
 * A `cxm preflight` run: the stage's settings as the deploy reads them (`stageConfig`, no
 * synthesis), the region and credentials as the SDK finds them (or `--region`), then every check at
 * once, each on its own: a call AWS refuses costs its row, never the others. Loaded only when
 * `cxm preflight` runs: it brings four SDK clients and aws-cdk-lib (through infra/cdk/stage/config.ts), which
 * no other command needs. The endpoints follow the SDK's standard `AWS_ENDPOINT_URL_<SERVICE>`
 * (aws-client-config.ts), which is also how the tests point them at recorded answers.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { TranscribeClient } from '@aws-sdk/client-transcribe';
import { stageConfig } from '#infra/cdk/stage/config';
import { type AwsServiceId, awsClientConfig } from '../stage/aws-client-config.ts';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import { checkApiKeys, checkCloudWatchRole } from './preflight-api-gateway.ts';
import type { PreflightCheck } from './preflight-finding.ts';
import { checkLambdaConcurrency } from './preflight-lambda-concurrency.ts';
import { checkLogsResourcePolicies } from './preflight-logs-policies.ts';
import { checkCallSummaries, checkTranscribe } from './preflight-transcribe.ts';

/** What `cxm preflight` prints: the table's rows, or `--json`'s object. */
export interface PreflightReport {
  stage: string;
  region: string;
  checks: PreflightCheck[];
  ok: number;
  warn: number;
  blocked: number;
}

/** The region the clients will use: `--region`, else the SDK's own resolution (AWS_REGION, the profile). */
async function resolveRegion(client: LambdaClient): Promise<string> {
  try {
    return await client.config.region();
  } catch {
    throw new CliError(
      'no AWS region: set AWS_REGION (or a profile with a region), or give --region <region>: the one the stage is to be deployed to',
    );
  }
}

/** Fails at once, in one line, when there are no credentials at all, rather than once per row. */
async function requireCredentials(client: LambdaClient): Promise<void> {
  try {
    await client.config.credentials();
  } catch (error) {
    throw new CliError(
      `no AWS credentials to read the account with (${(error as Error).message}): sign in (aws sso login, AWS_PROFILE or AWS_ACCESS_KEY_ID) and try again`,
    );
  }
}

/** A run's report, and when AWS answered nothing, why. */
export interface PreflightOutcome {
  report: PreflightReport;
  /** Why nothing could be learnt, when AWS answered none of the checks' calls. */
  diagnosis?: string | undefined;
}

/**
 * Reads what the account must have before stage `stage` deploys, and finds on each check, with SDK
 * clients of the run `cli` (in `regionOption`, else the environment's region).
 *
 * @example const { report } = await runPreflight(cli, 'dev', 'eu-west-1'); report.blocked // 0 when nothing stands in the way
 */
export async function runPreflight(
  cli: Pick<CliContext, 'env' | 'own'>,
  stage: string,
  regionOption: string | undefined,
): Promise<PreflightOutcome> {
  const config = stageConfig(stage);
  const clientConfig = (service: AwsServiceId) => ({
    ...awsClientConfig(cli.env, service),
    ...(regionOption !== undefined && { region: regionOption }),
  });
  const lambda = cli.own(new LambdaClient(clientConfig('Lambda')));
  const region = await resolveRegion(lambda);
  await requireCredentials(lambda);
  const apiGateway = cli.own(new APIGatewayClient(clientConfig('API Gateway')));
  const [concurrency, role, policies, transcribe, keys] = await Promise.all([
    checkLambdaConcurrency(lambda, config),
    checkCloudWatchRole(apiGateway, region),
    checkLogsResourcePolicies(cli.own(new CloudWatchLogsClient(clientConfig('CloudWatch Logs'))), config, region),
    checkTranscribe(cli.own(new TranscribeClient(clientConfig('Transcribe'))), region),
    checkApiKeys(apiGateway, region, stage),
  ]);
  const checks = [concurrency, role, policies, transcribe, checkCallSummaries(config, region), keys];
  const count = (finding: PreflightCheck['finding']) => checks.filter((check) => check.finding === finding).length;
  const report = { stage, region, checks, ok: count('ok'), warn: count('warn'), blocked: count('blocked') };
  // Every call refused alike (credentials AWS does not take, no network) is one problem, not five.
  const unanswered = [concurrency, role, policies, transcribe, keys].every((check) => !check.checked);
  return {
    report,
    diagnosis: unanswered
      ? `no check could read the account in ${region}: ${concurrency.detail}; ${concurrency.fix}`
      : undefined,
  };
}
