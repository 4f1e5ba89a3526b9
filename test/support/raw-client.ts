/**
 * HTTP requests sent exactly as written, over one keep-alive connection. fetch normalises what a
 * hostile client would send as is (it resolves `..`, turns `\` into `/`, merges header names), so
 * the hostile-input and isolation tests speak through this instead.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';

export interface RawResponse {
  /** The request target the response answers (path and query as sent). */
  target: string;
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  json: unknown;
}

export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the request line. */
  target: string;
  /** An array value goes out as one header line per element. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawClient {
  send(req: RawRequest): Promise<RawResponse>;
  close(): void;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

export function createRawClient(baseUrl: string): RawClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(baseUrl);
  return {
    send({ method, target, headers = {}, body }) {
      return new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
        const req = request(
          {
            agent,
            hostname,
            port,
            method,
            path: target,
            headers: { ...(payload === undefined ? {} : { 'Content-Length': String(payload.length) }), ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({ target, status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}
