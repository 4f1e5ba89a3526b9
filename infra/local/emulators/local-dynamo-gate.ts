/**
 * The gate in front of DynamoDB Local: DynamoDB Local checks no signature and has no option to
 * listen on loopback only; it keeps one database per access key id, so its key id is all that
 * guards its data. The gate, on 127.0.0.1, checks each request's SigV4 signature against the
 * credentials of the local functions (the local "role", which the local S3 also accepts) and
 * forwards it to DynamoDB Local under the store's own key id, which no function, request or answer
 * ever carries. So the key id an upload URL carries opens nothing: DynamoDB Local shows it an empty
 * database of its own, and the gate refuses it without the secret.
 */
import { Agent, createServer, request as httpRequest } from 'node:http';
import { type LocalCredentials, newLocalCredentials } from './local-identity.ts';
import { listenOnLoopback } from './serve-json-service.ts';
import { verifyLocalRequest } from './verify-local-request.ts';

export interface LocalDynamoGate {
  endpoint: string;
  close(): Promise<void>;
}

export interface LocalDynamoGateOptions {
  /** DynamoDB Local (or a proxy before it) and the credentials of the store's own database. */
  target: { endpoint: string; credentials: LocalCredentials };
  /** The credentials requests must be signed with. */
  accepted: LocalCredentials;
}

/**
 * Starts the gate on a free port of 127.0.0.1.
 *
 * @example const gate = await startLocalDynamoGate({ target: { endpoint, credentials: store }, accepted: functions });
 */
export async function startLocalDynamoGate({ target, accepted }: LocalDynamoGateOptions): Promise<LocalDynamoGate> {
  const targetUrl = new URL(target.endpoint);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const refused = await verifyLocalRequest(req.method ?? 'GET', req.url ?? '/', req.headers, body, accepted);
      if (refused) {
        const text = JSON.stringify({ __type: `com.amazon.coral.service#${refused.type}`, message: refused.message });
        res.writeHead(400, {
          'Content-Type': 'application/x-amz-json-1.0',
          'Content-Length': Buffer.byteLength(text),
        });
        res.end(text);
        return;
      }
      // DynamoDB Local reads the key id, not the signature: the store's own key id, in place.
      const headers = {
        ...req.headers,
        authorization: String(req.headers.authorization).replace(
          `Credential=${accepted.accessKeyId}/`,
          `Credential=${target.credentials.accessKeyId}/`,
        ),
        host: targetUrl.host,
      };
      const forward = httpRequest(
        { host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers, agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end();
      });
      forward.end(body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = 1000;
  return listenOnLoopback(server, () => agent.destroy());
}

/** What signs this process's requests to the local services: the local functions' own credentials. */
let functionCredentials: LocalCredentials | undefined;

/**
 * The local functions' credentials (the local "role"), made once per process: the gate, the local
 * S3, the Transcribe stand-in and the OpenSearch engine accept them. A caller that starts one of
 * those before the gate (the engine, which `npm start` starts beside DynamoDB Local) reads them here.
 *
 * @example const engine = await startLocalOpenSearch({ credentials: localFunctionCredentials(), region });
 */
export function localFunctionCredentials(): LocalCredentials {
  functionCredentials ??= newLocalCredentials();
  return functionCredentials;
}

/**
 * Makes `credentials` this process's function credentials: a test run's processes share one pair,
 * the one its OpenSearch engine accepts. Refused once the process signs with another pair.
 *
 * @example adoptLocalFunctionCredentials(inject('opensearch').credentials);
 */
export function adoptLocalFunctionCredentials(credentials: LocalCredentials): void {
  if (functionCredentials && functionCredentials.accessKeyId !== credentials.accessKeyId)
    throw new Error('this process signs with other local function credentials already');
  functionCredentials = { ...credentials };
}
/** The gates of this process, by the endpoint they guard; and that endpoint, by the gate's own. */
const gates = new Map<
  string,
  { users: number; started: Promise<LocalDynamoGate>; store: { endpoint: string; credentials: LocalCredentials } }
>();
const guardedBy = new Map<string, string>();

/**
 * Puts this process's AWS calls behind the gate: from the store the environment names
 * (pointAtLocalDynamo) to a gate before it, signed with the local functions' credentials, made once per
 * process (the local S3 and the Transcribe stand-in take them too). Every gateway of the process
 * shares them, as the sources runtime's functions share the process's one DynamoDB client. Returns
 * those credentials and the release of the gate (closed with its last user).
 *
 * @example const { credentials, release } = await gateLocalDynamo();
 */
export async function gateLocalDynamo(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ credentials: LocalCredentials; release(): Promise<void> }> {
  const endpoint = env.AWS_ENDPOINT_URL_DYNAMODB ?? '';
  const store = { accessKeyId: env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '' };
  if (!endpoint || !store.accessKeyId || !store.secretAccessKey)
    throw new Error(
      "the local gateway needs the local store's endpoint and credentials in this process (pointAtLocalDynamo) first",
    );
  const credentials = localFunctionCredentials();
  // A second gateway of the process finds the environment pointing at a gate already.
  const key = guardedBy.get(endpoint) ?? endpoint;
  let entry = gates.get(key);
  if (!entry) {
    entry = {
      users: 0,
      started: startLocalDynamoGate({ target: { endpoint, credentials: store }, accepted: credentials }),
      store: { endpoint, credentials: store },
    };
    gates.set(key, entry);
    entry.started.catch(() => gates.delete(key));
  }
  entry.users++;
  const gate = await entry.started;
  guardedBy.set(gate.endpoint, key);
  env.AWS_ENDPOINT_URL_DYNAMODB = gate.endpoint;
  env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
  env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
  let released = false;
  return {
    credentials,
    async release() {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      gates.delete(key);
      guardedBy.delete(gate.endpoint);
      // The process's next gateway starts from the store again, not from a gate that is gone.
      if (env.AWS_ENDPOINT_URL_DYNAMODB === gate.endpoint) {
        env.AWS_ENDPOINT_URL_DYNAMODB = entry.store.endpoint;
        env.AWS_ACCESS_KEY_ID = entry.store.credentials.accessKeyId;
        env.AWS_SECRET_ACCESS_KEY = entry.store.credentials.secretAccessKey;
      }
      await gate.close();
    },
  };
}
