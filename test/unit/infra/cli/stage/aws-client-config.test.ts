/**
 * A CLI run's SDK clients read the run's environment, never the process's: two runs in one process
 * (the tests) must each reach their own endpoint, in their own region, with their own credentials.
 */

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { awsClientConfig, awsRetryConfig } from '#infra/cli/stage/aws-client-config';

/** Shared files that do not exist: nothing of this machine's own AWS setup. */
const NO_FILES = {
  AWS_CONFIG_FILE: join(tmpdir(), 'cxm-no-aws-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(tmpdir(), 'cxm-no-aws-credentials'),
};

afterEach(() => vi.unstubAllEnvs());

describe("awsClientConfig, the SDK settings of a CLI run's clients", () => {
  it("takes the service's own endpoint variable, else AWS_ENDPOINT_URL, unless configured endpoints are ignored", () => {
    const env = {
      ...NO_FILES,
      AWS_ENDPOINT_URL_API_GATEWAY: 'http://127.0.0.1:1001',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:1002',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:1003',
    };
    expect(awsClientConfig(env, 'API Gateway').endpoint).toBe('http://127.0.0.1:1001');
    expect(awsClientConfig(env, 'Secrets Manager').endpoint).toBe('http://127.0.0.1:1002');
    expect(awsClientConfig(env, 'DynamoDB').endpoint).toBe('http://127.0.0.1:1003');
    expect(
      awsClientConfig({ ...env, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' }, 'API Gateway').endpoint,
    ).toBeUndefined();
  });

  it("reads the region, the keys and the retries of the run's environment, whatever the process's say", async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_LAMBDA', 'http://process.invalid');
    vi.stubEnv('AWS_REGION', 'ap-south-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAPROCESS');
    vi.stubEnv('AWS_MAX_ATTEMPTS', '7');
    const config = awsClientConfig(
      {
        ...NO_FILES,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIARUN',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_MAX_ATTEMPTS: '2',
        AWS_RETRY_MODE: 'adaptive',
      },
      'Lambda',
    );
    expect(config.endpoint).toBeUndefined();
    expect(await config.region()).toBe('eu-west-1');
    expect(config.credentials).toEqual({ accessKeyId: 'AKIARUN', secretAccessKey: 'secret' });
    expect(await config.maxAttempts()).toBe(2);
    expect(await config.retryMode()).toBe('adaptive');
  });

  it('without a region in the environment or the profile, the region is missing even when the process has one', async () => {
    vi.stubEnv('AWS_REGION', 'ap-south-1');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    await expect(awsClientConfig(NO_FILES, 'Lambda').region()).rejects.toThrow('Region is missing');
  });

  it("uses the SDK's defaults for retries the environment does not set", async () => {
    vi.stubEnv('AWS_MAX_ATTEMPTS', '7');
    vi.stubEnv('AWS_RETRY_MODE', 'adaptive');
    const retries = awsRetryConfig(NO_FILES);
    expect(await retries.maxAttempts()).toBe(3);
    expect(await retries.retryMode()).toBe('standard');
  });
});
