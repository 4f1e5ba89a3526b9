/**
 * An HTTP proxy in front of a test gateway, to give a client such as `cxm smoke` a stage with one
 * broken or hanging route: a request whose path contains a registered part is answered by the
 * proxy or held unanswered; every other request is forwarded unchanged. Rules match path parts
 * (a tenant id in it, say), so tests on other tenants can share one proxy.
 *
 * `dropResponse` plays a lost response: the request reaches the gateway and runs to the end, but the
 * client's connection breaks before a byte of the answer reaches it, as when a network or a load
 * balancer fails after the server committed. A retrying client cannot tell that from a request that
 * never arrived.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';

/** The answer the gateway gave to a request whose response the client never got. */
export interface DroppedResponse {
  status: number;
  text: string;
}

export interface ApiFaultProxy {
  url: string;
  /** Answers requests whose path contains `pathPart` with `status` and this JSON body. */
  answer(pathPart: string, status: number, body: unknown): void;
  /** Holds requests whose path contains `pathPart` without an answer; resolves when the first arrives. */
  hold(pathPart: string): Promise<void>;
  /**
   * Forwards the next request whose path contains `pathPart`, waits for the gateway's whole
   * response, then destroys the client's connection without sending any of it (the client's fetch
   * rejects). Later requests pass unchanged. Resolves with the response the client lost.
   */
  dropResponse(pathPart: string): Promise<DroppedResponse>;
  close(): Promise<void>;
}

export async function startApiFaultProxy(target: string): Promise<ApiFaultProxy> {
  const answers = new Map<string, { status: number; body: unknown }>();
  const holds = new Map<string, () => void>();
  const drops = new Map<string, (dropped: DroppedResponse) => void>();
  const held: ServerResponse[] = [];
  const upstream = new URL(target);

  const forwardTo = (req: IncomingMessage, res: ServerResponse, onAnswer: (answer: IncomingMessage) => void) => {
    const outbound = request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      onAnswer,
    );
    outbound.on('error', () => res.destroy());
    req.pipe(outbound);
  };

  const forward = (req: IncomingMessage, res: ServerResponse) =>
    forwardTo(req, res, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });

  const forwardAndDrop = (req: IncomingMessage, res: ServerResponse, dropped: (answer: DroppedResponse) => void) =>
    forwardTo(req, res, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', () => res.destroy());
      answer.on('end', () => {
        // Nothing was written to `res`: the client sees its connection close mid-request.
        res.destroy();
        dropped({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
    });

  /** The first rule whose path part the request's path contains. */
  const ruleFor = (rules: Map<string, unknown>, path: string) => [...rules.keys()].find((part) => path.includes(part));

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const drop = ruleFor(drops, path);
    if (drop !== undefined) {
      const dropped = drops.get(drop)!;
      // One response only: the client's retry must get through.
      drops.delete(drop);
      return forwardAndDrop(req, res, dropped);
    }
    const hold = ruleFor(holds, path);
    if (hold !== undefined) {
      held.push(res);
      holds.get(hold)!();
      return;
    }
    const part = ruleFor(answers, path);
    const canned = part === undefined ? undefined : answers.get(part);
    if (!canned) return forward(req, res);
    req.resume();
    res.writeHead(canned.status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'fault-proxy' });
    res.end(JSON.stringify(canned.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    answer: (pathPart, status, body) => void answers.set(pathPart, { status, body }),
    hold: (pathPart) => new Promise<void>((arrived) => holds.set(pathPart, arrived)),
    dropResponse: (pathPart) => new Promise<DroppedResponse>((dropped) => drops.set(pathPart, dropped)),
    close: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
