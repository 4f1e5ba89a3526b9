/**
 * The local Secrets Manager stand-in (the one bundle mode uses), holding the secrets a test adds,
 * behind a proxy that counts the
 * calls the functions' code makes and the version stage each asks for, and this process's
 * environment pointed at it, as a deployed function's is at Secrets Manager.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newLocalCredentials } from '#infra/local/emulators/local-identity';
import { type LocalSecret, startLocalSecretsManager } from '#infra/local/emulators/local-secrets-manager';

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
