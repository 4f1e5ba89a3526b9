/**
 * A fault-injecting HTTP proxy in front of DynamoDB Local. The API's DynamoDB client talks to it
 * as to DynamoDB itself, so the SDK parses real error responses and runs its own retries: a rule
 * answers matching requests with DynamoDB's error wire format (JSON 1.0: HTTP 400 or 500 with
 * `__type` in the body, as the service sends it) a given number of times; everything else is
 * forwarded unchanged. Each rule counts the requests it matched, so a test can count the SDK's
 * attempts of one call. A recording keeps the bodies of matching requests, faulted or not, so a
 * test can check what the client sent on the wire (a parameter the SDK would drop silently).
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';

export type DynamoFault =
  | 'ThrottlingException'
  | 'ProvisionedThroughputExceededException'
  /** TransactWriteItems only: TransactionCanceledException, the first item in TransactionConflict. */
  | 'TransactionConflict'
  | 'InternalServerError'
  /** Forwarded (so it commits), then answered 500: a write whose answer was lost. */
  | 'InternalServerErrorAfterCommit'
  /** Never answered until the rule is removed, then dropped: a store that hangs, then breaks. */
  | 'NoAnswer';

export interface FaultRule {
  /** The DynamoDB operation, as in `X-Amz-Target` (e.g. `TransactWriteItems`). */
  operation: string;
  /** Only requests whose raw JSON body contains this text (a key, a table name). */
  bodyContains?: string;
  fault: DynamoFault;
  /** How many matching requests get the fault; the rest are forwarded. Default: all of them. */
  times?: number;
}

export interface InjectedFault {
  /** Matching requests so far, faulted or forwarded: the SDK's attempts of the calls it covers. */
  readonly matched: number;
  readonly faulted: number;
  /** Ends the fault; requests it still holds (NoAnswer) lose their connection. */
  remove(): void;
}

/** The raw JSON bodies of the requests a recording matched, in arrival order. */
export interface RecordedRequests {
  readonly bodies: readonly string[];
  /** Stops recording; the bodies so far stay. */
  remove(): void;
}

export interface DynamoFaultProxy {
  url: string;
  inject(rule: FaultRule): InjectedFault;
  record(match: Pick<FaultRule, 'operation' | 'bodyContains'>): RecordedRequests;
  /** Runs `action` with the rules in force and removes them afterwards, whatever happens. */
  during<T, const R extends readonly FaultRule[]>(
    rules: R,
    action: () => Promise<T>,
  ): Promise<{ result: T; faults: { [K in keyof R]: InjectedFault } }>;
  close(): Promise<void>;
}

const NAMESPACE = 'com.amazonaws.dynamodb.v20120810';

const ERROR_ANSWERS: Record<
  'ThrottlingException' | 'ProvisionedThroughputExceededException' | 'InternalServerError',
  { status: number; message: string }
> = {
  ThrottlingException: { status: 400, message: 'Rate of requests exceeds the allowed throughput.' },
  ProvisionedThroughputExceededException: {
    status: 400,
    message:
      'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  },
  InternalServerError: { status: 500, message: 'Internal server error' },
};

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(text),
    'x-amzn-RequestId': randomUUID(),
  });
  res.end(text);
}

function answerError(res: ServerResponse, type: keyof typeof ERROR_ANSWERS): void {
  const { status, message } = ERROR_ANSWERS[type];
  answer(res, status, { __type: `${NAMESPACE}#${type}`, message });
}

/** One cancellation reason per transaction item, as DynamoDB reports them. */
function answerTransactionConflict(res: ServerResponse, body: string): void {
  const items = ((JSON.parse(body) as { TransactItems?: unknown[] }).TransactItems ?? [null]).length;
  const codes = Array.from({ length: items }, (_, i) => (i === 0 ? 'TransactionConflict' : 'None'));
  answer(res, 400, {
    __type: `${NAMESPACE}#TransactionCanceledException`,
    CancellationReasons: codes.map((Code) =>
      Code === 'None' ? { Code } : { Code, Message: 'Transaction is ongoing for the item' },
    ),
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
  });
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startDynamoFaultProxy(target: string): Promise<DynamoFaultProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const rules: Array<FaultRule & { matched: number; faulted: number }> = [];
  const held = new Map<ServerResponse, FaultRule>();
  const recordings = new Set<Pick<FaultRule, 'operation' | 'bodyContains'> & { bodies: string[] }>();

  function forward(
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent,
        },
        (response) => {
          readAll(response).then(
            (data) => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: data }),
            reject,
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const operation =
      String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
    const text = body.toString('utf8');
    for (const recording of recordings) {
      if (
        recording.operation === operation &&
        (recording.bodyContains === undefined || text.includes(recording.bodyContains))
      )
        recording.bodies.push(text);
    }
    const rule = rules.find(
      (r) => r.operation === operation && (r.bodyContains === undefined || text.includes(r.bodyContains)),
    );
    const fault = rule && rule.faulted < (rule.times ?? Infinity) ? rule.fault : undefined;
    if (rule) {
      rule.matched++;
      if (fault) rule.faulted++;
    }
    switch (fault) {
      case undefined:
      case 'InternalServerErrorAfterCommit': {
        let reply: Awaited<ReturnType<typeof forward>>;
        try {
          reply = await forward(req, body);
        } catch {
          // DynamoDB Local went away under us: the client sees a dropped connection, as it would.
          res.destroy();
          return;
        }
        if (fault) return answerError(res, 'InternalServerError');
        res.writeHead(reply.status, reply.headers);
        res.end(reply.body);
        return;
      }
      case 'NoAnswer':
        held.set(res, rule!);
        res.on('close', () => held.delete(res));
        return;
      case 'TransactionConflict':
        return answerTransactionConflict(res, text);
      default:
        return answerError(res, fault);
    }
  }

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  // Idle connections stay open as DynamoDB keeps them: with Node's 5 s, a socket the SDK reuses
  // after a throttling back-off (up to 4 s) can be closed under it, and that attempt never reaches
  // a rule, so a test counting the SDK's attempts would count one short.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('the fault proxy has no port');

  const inject = (rule: FaultRule): InjectedFault => {
    const entry = { ...rule, matched: 0, faulted: 0 };
    // The newest rule wins, so a test can narrow a broader one for a moment.
    rules.unshift(entry);
    return {
      get matched() {
        return entry.matched;
      },
      get faulted() {
        return entry.faulted;
      },
      remove: () => {
        const at = rules.indexOf(entry);
        if (at >= 0) rules.splice(at, 1);
        for (const [res, rule] of held) if (rule === entry) res.destroy();
      },
    };
  };

  return {
    url: `http://127.0.0.1:${address.port}`,
    inject,
    record(match) {
      const recording = { ...match, bodies: [] as string[] };
      recordings.add(recording);
      return { bodies: recording.bodies, remove: () => void recordings.delete(recording) };
    },
    async during(rules, action) {
      // One fault per rule, in the rules' order: the tuple type says so.
      const faults = rules.map(inject) as { [K in keyof typeof rules]: InjectedFault };
      try {
        return { result: await action(), faults };
      } finally {
        for (const fault of faults) fault.remove();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held.keys()) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
