/**
 * One side of the throughput figure, in a process of its own (the load generator must not share
 * its event loop): `gateway` is the local gateway serving every route as `npm start` does, but for
 * the webhooks' reading of the table streams (no endpoint is registered in those runs); `bare` is
 * a minimal node:http server making the same store calls, with no gateway and no chain; `webhooks`
 * is the gateway with the streams read, as `npm start` runs it, for the webhooks section.
 * Both use the DynamoDB Local and tables of the environment the bench sets, and print
 * `{"url": ...}` once they listen.
 *   node --import tsx test/bench/start-bench-server.ts gateway|webhooks|bare
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { prepareInvocationStore } from '#infra/local/runtime/invocation-scope';
import { bindGateway } from '#infra/local/serve-gateway';
import { buildNote } from '#shared/domain/notes/build-note';
import { newNoteId } from '#shared/domain/notes/new-note-id';
import { conversationsStore, documentsStore } from '#shared/store/function-stores';
import { BENCH_AUTH_CACHE_TTL_SECONDS } from './bench-requests.ts';

const DOCUMENT_PATH = /^\/api\/v1\/provisioning\/tenants\/([^/]+)\/([^/]+)\/([^/]+)\/versions\/current$/;
const NOTE_PATH = /^\/api\/v1\/cxm\/tenants\/([^/]+)\/conversations\/([^/]+)\/internal-notes$/;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function startBareServer(): Promise<string> {
  const documents = documentsStore();
  const conversations = conversationsStore();
  const send = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  const server = createServer((req, res) => {
    const answer = async () => {
      const url = req.url ?? '';
      const document = DOCUMENT_PATH.exec(url);
      if (req.method === 'GET' && document) {
        const json = (await documents.read(document[1]!, document[2]!, document[3]!))?.json;
        return json === undefined ? send(res, 404, '{}') : send(res, 200, json);
      }
      const conversation = NOTE_PATH.exec(url);
      if (req.method === 'POST' && conversation) {
        const { body } = JSON.parse(await readBody(req)) as { body: string };
        const now = new Date();
        const note = buildNote(newNoteId(now.getTime()), now);
        const outcome = await conversations.addNote(conversation[1]!, conversation[2]!, { ...note, body }, now);
        return send(res, outcome.kind === 'added' ? 201 : 409, JSON.stringify({ note }));
      }
      return send(res, 404, '{}');
    };
    answer().catch(() => send(res, 500, '{}'));
  });
  // As the gateway's server does.
  server.keepAliveTimeout = 1000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    }),
  );
}

async function startGateway(webhookStreams: 'read' | 'off'): Promise<string> {
  await prepareInvocationStore();
  const gateway = await bindGateway(0);
  // No rate limit: the figure is the gateway's cost, not the usage plan's.
  await gateway.serve({
    authCacheTtlSeconds: BENCH_AUTH_CACHE_TTL_SECONDS,
    webhookStreams,
    onFault: (error) => console.error('bench gateway fault:', error),
  });
  return gateway.url;
}

const mode = process.argv[2];
if (mode !== 'gateway' && mode !== 'webhooks' && mode !== 'bare') {
  console.error('usage: start-bench-server.ts gateway|webhooks|bare');
  process.exit(2);
}
process.on('SIGTERM', () => process.exit(0));
const url = mode === 'bare' ? await startBareServer() : await startGateway(mode === 'webhooks' ? 'read' : 'off');
process.stdout.write(`${JSON.stringify({ url })}\n`);
