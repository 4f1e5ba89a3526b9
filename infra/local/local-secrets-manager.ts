/**
 * The stand-in for Secrets Manager that bundle mode points the functions at
 * (`AWS_ENDPOINT_URL_SECRETS_MANAGER`): no Secrets Manager runs on this machine, so this answers
 * the one call the functions make, `GetSecretValue` (of AWSCURRENT, or of AWSPREVIOUS after a
 * rotation), for the stage's secrets, in the service's own
 * wire format (JSON 1.1 protocol). The functions' code path stays the deployed one: Powertools
 * Parameters, the SDK client, signing and HTTP. Anything else is answered as the service would
 * answer an unknown secret or action.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface LocalSecret {
  arn: string;
  name: string;
  value: string;
  /** The version a rotation replaced (AWSPREVIOUS); a secret never rotated has none. */
  previous?: string;
}

export interface LocalSecretsManager {
  endpoint: string;
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.1',
    'Content-Length': Buffer.byteLength(text),
    'x-amzn-RequestId': randomUUID(),
    ...(errorType && { 'x-amzn-ErrorType': errorType }),
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export async function startLocalSecretsManager(secrets: readonly LocalSecret[]): Promise<LocalSecretsManager> {
  const created = Math.floor(Date.now() / 1000);
  const server = createServer((req, res) => {
    void readJson(req).then((body) => {
      const action = String(req.headers['x-amz-target'] ?? '');
      if (req.method !== 'POST' || action !== 'secretsmanager.GetSecretValue') {
        return reply(res, 400, { __type: 'InvalidRequestException', message: `The local Secrets Manager answers GetSecretValue only, not ${action || req.method}.` }, 'InvalidRequestException');
      }
      // As the service does: by ARN or by name.
      const secret = secrets.find((candidate) => candidate.arn === body.SecretId || candidate.name === body.SecretId);
      if (!secret) {
        return reply(res, 400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }, 'ResourceNotFoundException');
      }
      const stage = body.VersionStage ?? 'AWSCURRENT';
      const value = stage === 'AWSCURRENT' ? secret.value : stage === 'AWSPREVIOUS' ? secret.previous : undefined;
      if (value === undefined) {
        return reply(
          res,
          400,
          { __type: 'ResourceNotFoundException', message: `Secrets Manager can't find the specified secret value for staging label: ${String(stage)}` },
          'ResourceNotFoundException',
        );
      }
      reply(res, 200, {
        ARN: secret.arn,
        Name: secret.name,
        SecretString: value,
        VersionId: stage === 'AWSCURRENT' ? '00000000-0000-4000-8000-000000000001' : '00000000-0000-4000-8000-000000000000',
        VersionStages: [stage],
        CreatedDate: created,
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
