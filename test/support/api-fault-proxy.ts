/**
 * An HTTP proxy in front of a test gateway, to give a client such as `cxm smoke` a stage with one
 * broken or hanging route: a request whose path contains a registered part is answered by the
 * proxy or held unanswered; every other request is forwarded unchanged. Rules match path parts
 * (a tenant id in it, say), so tests on other tenants can share one proxy.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';

export interface ApiFaultProxy {
  url: string;
  /** Answers requests whose path contains `pathPart` with `status` and this JSON body. */
  answer(pathPart: string, status: number, body: unknown): void;
  /** Holds requests whose path contains `pathPart` without an answer; resolves when the first arrives. */
  hold(pathPart: string): Promise<void>;
  close(): Promise<void>;
}

export async function startApiFaultProxy(target: string): Promise<ApiFaultProxy> {
  const answers = new Map<string, { status: number; body: unknown }>();
  const holds = new Map<string, () => void>();
  const held: ServerResponse[] = [];
  const upstream = new URL(target);

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const outbound = request(
      { hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outbound.on('error', () => res.destroy());
    req.pipe(outbound);
  };

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const hold = [...holds.keys()].find((part) => path.includes(part));
    if (hold !== undefined) {
      held.push(res);
      holds.get(hold)!();
      return;
    }
    const canned = [...answers.entries()].find(([part]) => path.includes(part))?.[1];
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
    close: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
