/**
 * Invocations as Lambda's runtime makes them, for the warm-overhead section: before each request
 * the next event is fetched over HTTP from a stand-in of the Runtime API in another process
 * (runtime-api-process.ts), and the answer is posted back after it. A Lambda function never runs
 * its requests back to back: between two, its runtime makes this round trip and waits on it, and
 * the SDK's working set leaves the CPU's caches as it would there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

const PROCESS_SCRIPT = fileURLToPath(new URL('./runtime-api-process.ts', import.meta.url));
const NEXT = '/2018-06-01/runtime/invocation/next';

/** The runtime's side of the Runtime API: the next event, and the answer to it. */
export interface RuntimeApi {
  /** The next invocation's event and its request id. */
  next(): Promise<{ event: APIGatewayProxyEvent; requestId: string }>;
  /** Posts the answer of invocation `requestId`. */
  respond(requestId: string, result: APIGatewayProxyResult): Promise<void>;
  /** Ends the stand-in's process. */
  close(): void;
}

/** One HTTP exchange over `agent`'s one kept-alive connection: the status, headers and body. */
function exchange(agent: Agent, port: number, method: string, path: string, body?: string) {
  return new Promise<{ status: number; requestId: string; body: string }>((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, method, path, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          requestId: String(response.headers['lambda-runtime-aws-request-id'] ?? ''),
          body: text,
        }),
      );
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * Starts a stand-in of the Runtime API that hands out `event` for every invocation.
 *
 * @example const runtime = await startRuntimeApi(event); const { event: next, requestId } = await runtime.next();
 */
export async function startRuntimeApi(event: APIGatewayProxyEvent): Promise<RuntimeApi> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', PROCESS_SCRIPT, JSON.stringify(event)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
    child.once('exit', (code) => reject(new Error(`the Runtime API stand-in ended (code ${code}) before it listened`)));
  });
  const port = Number(line);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`the Runtime API stand-in printed no port: ${line}`);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    async next() {
      const answer = await exchange(agent, port, 'GET', NEXT);
      if (answer.status !== 200) throw new Error(`Runtime API next: ${answer.status}`);
      return { event: JSON.parse(answer.body) as APIGatewayProxyEvent, requestId: answer.requestId };
    },
    async respond(requestId, result) {
      const path = `/2018-06-01/runtime/invocation/${requestId}/response`;
      const answer = await exchange(agent, port, 'POST', path, JSON.stringify(result));
      if (answer.status !== 202) throw new Error(`Runtime API response: ${answer.status}`);
    },
    close() {
      agent.destroy();
      child.kill();
    },
  };
}
