/**
 * The outputs of a deployed stage's stack `cxm-<stage>`, read with the caller's AWS credentials:
 * its base URL (`ApiUrl`), its search domain's URL (`SearchEndpoint`). The endpoint follows the SDK's standard
 * `AWS_ENDPOINT_URL_CLOUDFORMATION` (aws-client-config.ts), which is also how the tests point it at
 * a fake.
 */
import { CloudFormationClient, DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import { API_URL_OUTPUT, stackName } from '#infra/stage-names';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import { awsClientConfig } from './aws-client-config.ts';

/**
 * The value of the output `key` of stage `stage`'s stack (undefined when the stack has none), with
 * a CloudFormation client of the run `cli`, and the stack's status.
 *
 * @example const { value } = await findStageOutput(cli, 'prod', SEARCH_ENDPOINT_OUTPUT);
 */
export async function findStageOutput(
  cli: Pick<CliContext, 'env' | 'own'>,
  stage: string,
  key: string,
): Promise<{ value: string | undefined; status: string | undefined }> {
  const client = cli.own(new CloudFormationClient(awsClientConfig(cli.env, 'CloudFormation')));
  const name = stackName(stage);
  let stack: Stack | undefined;
  try {
    stack = (await client.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
  } catch (error) {
    throw explainLookupFailure(error, name, stage);
  }
  return { value: stack?.Outputs?.find((output) => output.OutputKey === key)?.OutputValue, status: stack?.StackStatus };
}

/**
 * The `ApiUrl` of stage `stage`, with a CloudFormation client of the run `cli`.
 *
 * @example const url = await findStageApiUrl(cli, 'prod'); // https://abc123.execute-api.eu-west-1.amazonaws.com/prod/
 */
export async function findStageApiUrl(cli: Pick<CliContext, 'env' | 'own'>, stage: string): Promise<string> {
  const name = stackName(stage);
  const { value: url, status } = await findStageOutput(cli, stage, API_URL_OUTPUT);
  if (!url) {
    throw new CliError(
      `stack ${name} has no ${API_URL_OUTPUT} output (stack status ${status ?? 'unknown'}); finish or repeat its deployment (npx cdk deploy -c stage=${stage})`,
    );
  }
  return url;
}

/** The failures an operator can fix, as what to do; anything else as it is. */
function explainLookupFailure(error: unknown, name: string, stage: string): unknown {
  if (!(error instanceof Error)) return error;
  // CloudFormation answers an absent stack with a ValidationError "Stack with id ... does not exist".
  if (error.name === 'ValidationError' && /does not exist/.test(error.message)) {
    return new CliError(
      `no stack ${name} in this account and region; deploy the stage first (npx cdk deploy -c stage=${stage}) or check AWS_REGION/AWS_PROFILE`,
    );
  }
  if (error.name === 'CredentialsProviderError') {
    return new CliError(
      `no AWS credentials to read stack ${name} with: sign in (aws sso login, AWS_PROFILE or AWS_ACCESS_KEY_ID) and try again`,
    );
  }
  if (/region is missing/i.test(error.message))
    return new CliError(`no AWS region: set AWS_REGION (or a profile's region) to the stage's region`);
  return error;
}
