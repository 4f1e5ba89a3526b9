/**
 * The local Secrets Manager stand-in (the one bundle mode uses), holding the secrets a test adds,
 * behind a proxy that counts the
 * calls the functions' code makes and the version stage each asks for, and this process's
 * environment pointed at it, as a deployed function's is at Secrets Manager.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { newLocalCredentials } from '#infra/local/emulators/local-identity';
import { type LocalSecret, startLocalSecretsManager } from '#infra/local/emulators/local-secrets-manager';
import { SECRET_ENVS, type SecretName } from '#shared/settings/secret-settings';

export interface CountedSecretsManager {
  /**
   * A new secret of `value`, named `<prefix>-<n>`: one per test, since Powertools' cache (five
   * minutes, per process) must not carry between them.
   */
  addSecret(prefix: string, value: string): LocalSecret;
  /** GetSecretValue calls so far. */
  calls(): number;
  /** The version stage of each call so far (AWSCURRENT when the call names none). */
  stages(): string[];
  /** Stops both servers and puts the environment back. */
  close(): Promise<void>;
}

/**
 * Rotates `secret` as `aws secretsmanager put-secret-value` would: `next` becomes AWSCURRENT, the
 * value it replaces AWSPREVIOUS.
 */
export function rotateSecret(secret: LocalSecret, next: string): void {
  secret.previous = secret.value;
  secret.value = next;
}

/**
 * Starts the stand-in, with no secret yet, and points this process at it.
 *
 * @example const manager = await startCountedSecretsManager(); // in beforeAll; manager.close() in afterAll
 */
export async function startCountedSecretsManager(): Promise<CountedSecretsManager> {
  const secrets: LocalSecret[] = [];
  const credentials = newLocalCredentials();
  const manager = await startLocalSecretsManager(secrets, credentials);
  const target = new URL(manager.endpoint);
  const stages: string[] = [];
  const counter = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      stages.push(
        (JSON.parse(body.toString('utf8') || '{}') as { VersionStage?: string }).VersionStage ?? 'AWSCURRENT',
      );
      const forward = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  const saved = { ...process.env };
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(counter.address() as AddressInfo).port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  });
  return {
    addSecret(prefix, value) {
      const name = `${prefix}-${secrets.length}`;
      const secret = { name, arn: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-LOCAL0`, value };
      secrets.push(secret);
      return secret;
    },
    calls: () => stages.length,
    stages: () => [...stages],
    async close() {
      counter.closeAllConnections();
      await new Promise((resolve) => counter.close(resolve));
      await manager.close();
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    },
  };
}

/** A test file's stage secret in the stand-in (`useStageSecretInSecretsManager`). */
export interface StageSecretInSecretsManager {
  /** The stand-in, started before the file's tests. */
  readonly manager: CountedSecretsManager;
  /** This test's secret. */
  readonly secret: LocalSecret;
  /** Rotates this test's secret (`rotateSecret`). */
  rotate(next: string): void;
}

/**
 * For a test file, at its top level: the stand-in, started before its tests and stopped after
 * them, and the stage secret `name` held there, a new one of `initial` for each test. Its ARN is
 * then the secret's only setting in the environment (the local value variables are removed), as on
 * a deployed stage.
 *
 * @example const stage = useStageSecretInSecretsManager('cursorSecret', KEY_1); // stage.rotate(KEY_2) in a test
 */
export function useStageSecretInSecretsManager(name: SecretName, initial: string): StageSecretInSecretsManager {
  const env = SECRET_ENVS[name];
  let manager: CountedSecretsManager | undefined;
  let secret: LocalSecret | undefined;
  beforeAll(async () => {
    manager = await startCountedSecretsManager();
    delete process.env[env.value];
    delete process.env[env.previous];
  });
  afterAll(() => manager?.close());
  beforeEach(() => {
    secret = manager!.addSecret(`cxm-test-${name}`, initial);
    process.env[env.arn] = secret.arn;
  });
  return {
    get manager() {
      return manager!;
    },
    get secret() {
      return secret!;
    },
    rotate: (next) => rotateSecret(secret!, next),
  };
}
