/**
 * The key-tag secret of a deployed stage (`cxm-<stage>-key-tag-secret`), which `cxm keys create
 * --stage` and `cxm smoke --stage` tag new keys under: its AWSCURRENT version, read with the
 * caller's AWS credentials (`secretsmanager:GetSecretValue` on that secret). The endpoint follows
 * the SDK's standard `AWS_ENDPOINT_URL_SECRETS_MANAGER` (aws-client-config.ts), which is how the
 * tests point it at the local stand-in.
 */
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { secretName } from '#infra/stage-names';
import { CliError } from '../terminal/cli-error.ts';

const ACCESS_DENIED = new Set(['AccessDeniedException', 'AccessDenied']);

/**
 * The stage's current key-tag secret, or a CliError saying what to do; `client` is the run's,
 * which destroys it.
 *
 * @example
 * const tagSecret = await stageKeyTagSecret('prod', new SecretsManagerClient(awsClientConfig(env, 'Secrets Manager')));
 * await issueKey(keys, request, { tagSecret, usagePlan });
 */
export async function stageKeyTagSecret(stage: string, client: SecretsManagerClient): Promise<string> {
  const name = secretName(stage, 'keyTagSecret');
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: name }));
    if (!SecretString)
      throw new CliError(
        `secret ${name} has no string value; rotate it as infra/README.md says ("Rotating the key-tag secret")`,
      );
    return SecretString;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) {
      throw new CliError(
        `stage ${stage} has no secret ${name} in this account and region: deploy the stage first (npx cdk deploy -c stage=${stage}; stages deployed before key tags get it then) or check AWS_REGION/AWS_PROFILE`,
      );
    }
    if (error instanceof Error && ACCESS_DENIED.has(error.name)) {
      throw new CliError(
        `your AWS credentials may not read secret ${name}: keys are tagged with it; grant secretsmanager:GetSecretValue on it (${error.message})`,
      );
    }
    throw error;
  }
}
