/**
 * An HTTP server playing an OpenSearch cluster for the reporting functions (reached over plain
 * HTTP, so unsigned; or over HTTPS with a certificate of the caller's, so signed as a domain's
 * requests are): each search is answered from a queue of scripted answers (a recorded
 * response, a reset connection, no answer at all, headers and then a body that never ends, a body
 * that is not JSON), else with an empty
 * result. The functions' real client, transport, retries and timeouts run against it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { RecordedResponse } from './fake-opensearch-transport.ts';
import { searchAnswer } from './opensearch-recorded-responses.ts';

export type StubAnswer =
  | RecordedResponse
  | { statusCode: number; text: string }
  | 'reset'
  | 'no-answer'
  | 'stalled-body';

export interface StubRequest {
  method: string;
  path: string;
  /** The query string's parameters (routing, ...). */
  query: Record<string, string>;
  json: unknown;
  /** Whether it came with a SigV4 Authorization header. */
  signed: boolean;
}

export interface OpenSearchStub {
  url: string;
  requests: StubRequest[];
  /** Answers for the next requests, in order. */
  script(...answers: StubAnswer[]): void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

function send(res: ServerResponse, statusCode: number, text: string): void {
  res.writeHead(statusCode, {
    'Content-Type': 'application/json; charset=UTF-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * With nothing scripted: an empty result, or what `answer` gives for the search's path. With `tls`
 * it serves HTTPS, as a domain does, so the functions' client signs its requests.
 */
export async function startOpenSearchStub(
  answer: (path: string) => StubAnswer = (path) => searchAnswer(path.split('/')[1] ?? '', [], 0),
  { tls }: { tls?: { key: string; cert: string } } = {},
): Promise<OpenSearchStub> {
  const requests: StubRequest[] = [];
  const queue: StubAnswer[] = [];
  const held = new Set<ServerResponse>();

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    void readJson(req).then((json) => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const path = url.pathname;
      requests.push({
        method: req.method ?? 'GET',
        path,
        query: Object.fromEntries(url.searchParams),
        json,
        signed: /^AWS4-HMAC-SHA256 /.test(req.headers.authorization ?? ''),
      });
      const next = queue.shift() ?? answer(path);
      if (next === 'reset') return req.socket.destroy();
      if (next === 'no-answer' || next === 'stalled-body') {
        // A stalled body: a 200 whose first bytes came, and whose last never do.
        if (next === 'stalled-body') {
          res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
          res.write('{"took":1,"timed_out":false,"hits":{');
        }
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      send(res, next.statusCode, 'text' in next ? next.text : JSON.stringify(next.body));
    });
  };
  const server = tls ? createSecureServer(tls, serve) : createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('the OpenSearch stub has no port');

  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${address.port}`,
    requests,
    script: (...answers) => void queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
