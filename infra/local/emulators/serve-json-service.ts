/**
 * A local stand-in for an AWS service of the JSON protocol (1.1: Secrets Manager, Transcribe; 1.0: SQS), on a
 * free port of 127.0.0.1: each request is `POST /` with its operation in `X-Amz-Target` and its
 * input as JSON; an answer is JSON, an error `{__type, message}` with `x-amzn-ErrorType`, as the SDK
 * parses them. Only requests to a loopback host signed with the one key the stand-in accepts are
 * answered (verify-local-request.ts). The stand-in gives only its operations; this is the wire.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { LocalCredentials } from './local-identity.ts';
import { verifyLocalRequest } from './verify-local-request.ts';

/** A refusal as the service words it: its error type (`ResourceNotFoundException`...) and message. */
export class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** One operation: its input, its output (or a ServiceError thrown). */
export type JsonOperation = (
  input: Record<string, unknown>,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface JsonServiceServer {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Starts `server` on a free port of 127.0.0.1 (a stand-in answers this machine alone): its endpoint,
 * and a close that ends every connection, then `onClose`.
 *
 * @example const { endpoint, close } = await listenOnLoopback(createServer(handler));
 */
export async function listenOnLoopback(server: Server, onClose?: () => void): Promise<JsonServiceServer> {
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
        onClose?.();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseInput(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8') || '{}');
  } catch {
    throw new ServiceError('SerializationException', 'The request body is not valid JSON.');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new ServiceError('SerializationException', 'The request body is not a JSON object.');
  return value as Record<string, unknown>;
}

/**
 * Serves `operations` (keyed by their `X-Amz-Target`, e.g. `secretsmanager.GetSecretValue`) to
 * requests signed with `options.accepted`; `service` names the stand-in in the refusal of anything else.
 *
 * @example const server = await serveJsonService('Secrets Manager', { 'secretsmanager.GetSecretValue': getSecretValue }, { accepted });
 */
export async function serveJsonService(
  service: string,
  operations: Readonly<Record<string, JsonOperation>>,
  options: { protocol?: '1.0' | '1.1'; accepted: LocalCredentials },
): Promise<JsonServiceServer> {
  const contentType = `application/x-amz-json-${options.protocol ?? '1.1'}`;
  const server = createServer((req, res) => {
    void (async () => {
      let status = 200;
      let body: unknown;
      try {
        const raw = await readBody(req);
        const refused = await verifyLocalRequest(
          req.method ?? 'GET',
          req.url ?? '/',
          req.headers,
          raw,
          options.accepted,
        );
        if (refused) throw new ServiceError(refused.type, refused.message);
        const target = String(req.headers['x-amz-target'] ?? '');
        const operation = req.method === 'POST' ? operations[target] : undefined;
        if (!operation) {
          const asked = req.method === 'POST' ? target || 'a request without X-Amz-Target' : `${req.method} requests`;
          throw new ServiceError(
            'UnknownOperationException',
            `The local stand-in for ${service} answers ${Object.keys(operations).join(', ')}, not ${asked}.`,
          );
        }
        body = await operation(parseInput(raw));
      } catch (error) {
        const refusal =
          error instanceof ServiceError
            ? error
            : new ServiceError('InternalFailure', error instanceof Error ? error.message : String(error));
        status = refusal.type === 'InternalFailure' ? 500 : 400;
        body = { __type: refusal.type, message: refusal.message };
        res.setHeader('x-amzn-ErrorType', refusal.type);
      }
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'Content-Type': contentType,
        'Content-Length': Buffer.byteLength(text),
        'x-amzn-RequestId': randomUUID(),
      });
      res.end(text);
    })();
  });
  return listenOnLoopback(server);
}
