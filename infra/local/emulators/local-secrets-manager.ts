/**
 * The stand-in for Secrets Manager that bundle mode points the functions at
 * (`AWS_ENDPOINT_URL_SECRETS_MANAGER`): no Secrets Manager runs on this machine, so this answers
 * the calls the functions make, `GetSecretValue` (of AWSCURRENT, or of AWSPREVIOUS after a
 * rotation) and `PutSecretValue` (the webhook sealing key's rotation at a deploy: the new value
 * becomes AWSCURRENT, and its `ClientRequestToken` makes a retry a no-op), for the stage's
 * secrets, in the service's own wire format (JSON 1.1 protocol, serve-json-service.ts). The functions' code path stays the
 * deployed one: Powertools Parameters, the SDK client, signing and HTTP. Anything else is answered
 * as the service would answer an unknown secret or action.
 */
import type { LocalCredentials } from './local-identity.ts';
import { ServiceError, serveJsonService } from './serve-json-service.ts';

export interface LocalSecret {
  arn: string;
  name: string;
  value: string;
  /** The version a rotation replaced (AWSPREVIOUS); a secret never rotated has none. */
  previous?: string;
  /** The `ClientRequestToken` of each version put, with its value. */
  tokens?: Map<string, string>;
}

export interface LocalSecretsManager {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Serves `secrets` to requests signed with `accepted`.
 *
 * @example const manager = await startLocalSecretsManager([{ arn, name, value }], functionCredentials);
 */
export async function startLocalSecretsManager(
  secrets: readonly LocalSecret[],
  accepted: LocalCredentials,
): Promise<LocalSecretsManager> {
  const created = Math.floor(Date.now() / 1000);
  // As the service does: by ARN or by name.
  const find = (id: unknown) => {
    const secret = secrets.find((candidate) => candidate.arn === id || candidate.name === id);
    if (!secret)
      throw new ServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  };
  return serveJsonService(
    'Secrets Manager',
    {
      'secretsmanager.GetSecretValue': (input) => {
        const secret = find(input.SecretId);
        const stage = input.VersionStage ?? 'AWSCURRENT';
        const value = stage === 'AWSCURRENT' ? secret.value : stage === 'AWSPREVIOUS' ? secret.previous : undefined;
        if (value === undefined)
          throw new ServiceError(
            'ResourceNotFoundException',
            `Secrets Manager can't find the specified secret value for staging label: ${String(stage)}`,
          );
        return {
          ARN: secret.arn,
          Name: secret.name,
          SecretString: value,
          VersionId:
            stage === 'AWSCURRENT' ? '00000000-0000-4000-8000-000000000001' : '00000000-0000-4000-8000-000000000000',
          VersionStages: [stage],
          CreatedDate: created,
        };
      },
      'secretsmanager.PutSecretValue': (input) => {
        const secret = find(input.SecretId);
        const { ClientRequestToken: token, SecretString: value } = input;
        if (typeof token !== 'string' || typeof value !== 'string')
          throw new ServiceError('InvalidParameterException', 'ClientRequestToken and SecretString are required here.');
        secret.tokens ??= new Map();
        const put = secret.tokens.get(token);
        if (put !== undefined && put !== value)
          throw new ServiceError('ResourceExistsException', 'A resource with the ID you requested already exists.');
        if (put === undefined) {
          secret.tokens.set(token, value);
          secret.previous = secret.value;
          secret.value = value;
        }
        return { ARN: secret.arn, Name: secret.name, VersionId: token, VersionStages: ['AWSCURRENT'] };
      },
    },
    { accepted },
  );
}
