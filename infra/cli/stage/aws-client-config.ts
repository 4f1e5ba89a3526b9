/**
 * What every AWS SDK client of a CLI run is built with, read from the run's environment (CliIo.env)
 * the way the SDK reads the process's: the region (`AWS_REGION`, else the profile's), the endpoint
 * (`AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`), the credentials (`AWS_PROFILE`'s, else
 * `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`, else the SDK's chain), the
 * retries (`AWS_RETRY_MODE`, `AWS_MAX_ATTEMPTS`) and the shared files (`AWS_CONFIG_FILE`,
 * `AWS_SHARED_CREDENTIALS_FILE`). The bin's environment is the process's, so an operator sees no
 * difference; two runs in one process (the tests) each reach their own endpoints with their own
 * credentials. What this leaves out (FIPS and dual-stack endpoints, an endpoint in the profile, a
 * web identity or container role) the SDK reads where it always does.
 *
 * Loaded only by the modules that build clients: it brings the SDK's credential chain.
 */
import { join } from 'node:path';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import {
  DEFAULT_PROFILE,
  getHomeDir,
  type LoadedConfigSelectors,
  loadConfig,
  NODE_REGION_CONFIG_FILE_OPTIONS,
  NODE_REGION_CONFIG_OPTIONS,
  type NodeSharedConfigInit,
} from '@smithy/core/config';
import { NODE_MAX_ATTEMPT_CONFIG_OPTIONS, NODE_RETRY_MODE_CONFIG_OPTIONS } from '@smithy/core/retry';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Provider } from '@smithy/types';
import type { CliEnv } from '../terminal/cli-io.ts';

/** The services the CLI calls, by the id each SDK client gives itself (`client.config.serviceId`). */
export type AwsServiceId =
  | 'API Gateway'
  | 'CloudFormation'
  | 'CloudWatch Logs'
  | 'DynamoDB'
  | 'Lambda'
  | 'OpenSearch'
  | 'Secrets Manager'
  | 'Transcribe';

/** The part of an SDK client's configuration read from the environment. */
export interface AwsClientConfig {
  profile: string;
  region: Provider<string>;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Absent when the environment names none: the SDK's own endpoint for the region. */
  endpoint?: string;
  retryMode: Provider<string>;
  maxAttempts: Provider<number>;
}

/** The profile and the shared files the environment names, as the SDK finds them without one. */
function sharedFiles(env: CliEnv): NodeSharedConfigInit & { profile: string } {
  return {
    profile: env.AWS_PROFILE || DEFAULT_PROFILE,
    filepath: env.AWS_SHARED_CREDENTIALS_FILE || join(getHomeDir(), '.aws', 'credentials'),
    configFilepath: env.AWS_CONFIG_FILE || join(getHomeDir(), '.aws', 'config'),
  };
}

/** A setting as the SDK loads it (environment, then profile, then default), its variable read from `env`. */
function fromEnvironment<T>(
  selectors: LoadedConfigSelectors<T>,
  env: CliEnv,
  files: NodeSharedConfigInit,
): Provider<T> {
  return loadConfig(
    {
      ...selectors,
      environmentVariableSelector: (_processEnv, options) => selectors.environmentVariableSelector({ ...env }, options),
    },
    files,
  );
}

function endpointOf(env: CliEnv, serviceId: AwsServiceId): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === 'true') return undefined;
  return (
    env[['AWS_ENDPOINT_URL', ...serviceId.toUpperCase().split(' ')].join('_')] || env.AWS_ENDPOINT_URL || undefined
  );
}

function credentialsOf(
  env: CliEnv,
  files: NodeSharedConfigInit & { profile: string },
): AwsCredentialIdentity | AwsCredentialIdentityProvider {
  // A profile named in the environment wins over keys beside it, as in the SDK's chain.
  if (!env.AWS_PROFILE && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }),
    };
  }
  return defaultProvider(files);
}

/**
 * The settings of a client of `serviceId` for a run with environment `env`.
 *
 * @example new LambdaClient({ ...awsClientConfig(cli.env, 'Lambda'), region: 'eu-west-1' })
 */
export function awsClientConfig(env: CliEnv, serviceId: AwsServiceId): AwsClientConfig {
  const files = sharedFiles(env);
  const endpoint = endpointOf(env, serviceId);
  return {
    profile: files.profile,
    region: fromEnvironment({ ...NODE_REGION_CONFIG_OPTIONS }, env, { ...NODE_REGION_CONFIG_FILE_OPTIONS, ...files }),
    credentials: credentialsOf(env, files),
    ...(endpoint && { endpoint }),
    ...awsRetryConfig(env),
  };
}

/**
 * The retry settings alone, for a client whose region, endpoint and credentials come from elsewhere
 * (DynamoDB Local's, from local.json).
 *
 * @example new DynamoDBClient({ ...awsRetryConfig(cli.env), endpoint, region, credentials })
 */
export function awsRetryConfig(env: CliEnv): Pick<AwsClientConfig, 'retryMode' | 'maxAttempts'> {
  const files = sharedFiles(env);
  return {
    retryMode: fromEnvironment(NODE_RETRY_MODE_CONFIG_OPTIONS, env, files),
    maxAttempts: fromEnvironment(NODE_MAX_ATTEMPT_CONFIG_OPTIONS, env, files),
  };
}
