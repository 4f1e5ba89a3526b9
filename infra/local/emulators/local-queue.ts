/**
 * Amazon SQS's part, locally, for the queue of webhook delivery tasks: a stand-in that speaks SQS's
 * JSON protocol on 127.0.0.1 for what the functions send (`SendMessageBatch`, `SendMessage`,
 * `DelaySeconds` up to 15 minutes, the body's MD5 the SDK checks), and plays the event source
 * mapping that hands its messages to their function: batches of up to 10 once each is due, up to
 * the mapping's concurrency at once, a
 * message the function reports as failed (or all of a batch it threw on) given again after the
 * visibility timeout, and one received five times reported as a stage would move it to the
 * dead-letter queue. Messages live in memory: a restart of `npm start` forgets the tasks in it, and
 * their deliveries stay pending until the webhook sweeper, which the next start runs at once, finds
 * them past their grace and queues their tasks again (shared/webhooks/sweep-deliveries.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { LocalCredentials } from './local-identity.ts';
import { LOCAL_ACCOUNT } from './local-identity.ts';
import { ServiceError, serveJsonService } from './serve-json-service.ts';

/** SQS's longest delay, and its most entries in one batch. */
const MAX_DELAY_SECONDS = 900;
const MAX_BATCH = 10;
/** A stage's queue gives a message five times before its dead-letter queue takes it (webhooks.ts). */
const MAX_RECEIVES = 5;
/**
 * How long a close waits for the batch under way: an attempt may take 15 s, and a stop must not.
 * A task cut short leaves its delivery pending, as a stage's function timing out would.
 */
const CLOSE_GRACE_MS = 1_000;

export interface LocalQueueOptions {
  name: string;
  region: string;
  /** The only key whose signatures it answers: the local functions' own. */
  credentials: LocalCredentials;
  /** How long a message the function failed on stays hidden (a stage: six times the timeout). */
  visibilityTimeoutMs?: number;
  /** How often due messages are looked for. */
  pollMs?: number;
  /** Batches handed to the function at once, as the mapping's MaximumConcurrency (default 1). */
  maxConcurrency?: number;
  report: (line: string, error?: unknown) => void;
}

export interface LocalQueue {
  /** The queue's URL, as the functions are given it. */
  url: string;
  /** The stand-in's endpoint (`AWS_ENDPOINT_URL_SQS`). */
  endpoint: string;
  /** Hands the messages to `consume` from now on, as the function's event source mapping does. */
  consumeWith(consume: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>): void;
  /** Messages waiting or in flight. */
  size(): number;
  close(): Promise<void>;
}

interface HeldMessage {
  id: string;
  body: string;
  /** Its MessageGroupId: on a standard queue, the tenant a fair queue keeps apart from the others. */
  group: string;
  visibleAt: number;
  receives: number;
  sentAt: number;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/**
 * Starts the stand-in of the queue `name` on a free port of 127.0.0.1.
 *
 * @example const queue = await startLocalQueue({ name: 'cxm-local-webhook-deliveries', region, report });
 */
export async function startLocalQueue(options: LocalQueueOptions): Promise<LocalQueue> {
  const visibilityMs = options.visibilityTimeoutMs ?? 2000;
  const held = new Map<string, HeldMessage>();
  let consume: ((event: SQSEvent) => Promise<SQSBatchResponse | undefined>) | undefined;
  let url = '';
  const arn = `arn:aws:sqs:${options.region}:${LOCAL_ACCOUNT}:${options.name}`;

  const accept = (input: Record<string, unknown>, entry: Record<string, unknown>) => {
    if (input.QueueUrl !== url)
      throw new ServiceError(
        'QueueDoesNotExist',
        `The local stand-in holds ${url} only, not ${String(input.QueueUrl)}.`,
      );
    const body = entry.MessageBody;
    if (typeof body !== 'string' || body === '')
      throw new ServiceError('InvalidParameterValue', 'MessageBody is a string of at least one character.');
    const delay = entry.DelaySeconds ?? 0;
    if (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0 || delay > MAX_DELAY_SECONDS)
      throw new ServiceError('InvalidParameterValue', `DelaySeconds is a whole number from 0 to ${MAX_DELAY_SECONDS}.`);
    const group = typeof entry.MessageGroupId === 'string' ? entry.MessageGroupId : '';
    const now = Date.now();
    const message: HeldMessage = {
      id: randomUUID(),
      body,
      group,
      visibleAt: now + delay * 1000,
      receives: 0,
      sentAt: now,
    };
    held.set(message.id, message);
    return { MessageId: message.id, MD5OfMessageBody: md5(body) };
  };

  const server = await serveJsonService(
    'SQS',
    {
      'AmazonSQS.SendMessage': (input) => accept(input, input),
      'AmazonSQS.SendMessageBatch': (input) => {
        const entries = Array.isArray(input.Entries) ? (input.Entries as Record<string, unknown>[]) : [];
        if (entries.length === 0 || entries.length > MAX_BATCH)
          throw new ServiceError(
            'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
            'A batch holds 1 to 10 entries.',
          );
        return {
          Successful: entries.map((entry) => ({ Id: entry.Id, ...accept(input, entry) })),
          Failed: [],
        };
      },
    },
    { protocol: '1.0', accepted: options.credentials },
  );
  url = `${server.endpoint}/${LOCAL_ACCOUNT}/${options.name}`;

  const maxConcurrency = options.maxConcurrency ?? 1;
  /** The batches the function is working on, and their messages (not handed out again meanwhile). */
  const running = new Set<Promise<void>>();
  const inFlight = new Set<string>();
  let closing = false;
  const record = (message: HeldMessage): SQSRecord => ({
    messageId: message.id,
    receiptHandle: `${message.id}.${message.receives}`,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receives),
      SentTimestamp: String(message.sentAt),
      SenderId: LOCAL_ACCOUNT,
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: md5(message.body),
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: options.region,
  });

  /** The batch `due` handed to the function; what it failed on given again, as SQS would. */
  async function deliver(due: HeldMessage[]): Promise<void> {
    let failed: Set<string>;
    try {
      const answer = await consume!({ Records: due.map(record) });
      failed = new Set((answer?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      options.report(`${options.name}: the function failed on a batch of ${due.length}`, error);
      failed = new Set(due.map((message) => message.id));
    }
    for (const message of due) {
      inFlight.delete(message.id);
      if (!failed.has(message.id)) held.delete(message.id);
      else if (message.receives >= MAX_RECEIVES) {
        held.delete(message.id);
        options.report(
          `${options.name}: message ${message.id} failed ${message.receives} times; a stage would put it in the dead-letter queue`,
        );
      }
    }
  }

  /**
   * The next batch, as a fair queue picks it: due messages of the groups with the fewest messages
   * in flight first, each group's in the order they became due. A tenant whose receivers hold their
   * tasks (or that floods the queue) then waits on itself, not every other tenant on it.
   */
  function nextBatch(now: number): HeldMessage[] {
    const busy = new Map<string, number>();
    for (const id of inFlight) {
      const group = held.get(id)?.group ?? '';
      busy.set(group, (busy.get(group) ?? 0) + 1);
    }
    const due = [...held.values()].filter((message) => message.visibleAt <= now && !inFlight.has(message.id));
    const batch: HeldMessage[] = [];
    while (batch.length < MAX_BATCH && due.length > 0) {
      let best = 0;
      for (let i = 1; i < due.length; i++) {
        const [a, b] = [due[i]!, due[best]!];
        const [loadA, loadB] = [busy.get(a.group) ?? 0, busy.get(b.group) ?? 0];
        if (loadA < loadB || (loadA === loadB && a.visibleAt < b.visibleAt)) best = i;
      }
      const [picked] = due.splice(best, 1);
      batch.push(picked!);
      busy.set(picked!.group, (busy.get(picked!.group) ?? 0) + 1);
    }
    return batch;
  }

  /**
   * Hands due messages to the function, a batch of up to 10 each, up to `maxConcurrency` batches
   * at once, as the event source mapping scales: one slow batch holds back no other.
   */
  function pump(): void {
    while (consume && !closing && running.size < maxConcurrency) {
      const now = Date.now();
      const due = nextBatch(now);
      if (due.length === 0) return;
      for (const message of due) {
        message.receives++;
        message.visibleAt = now + visibilityMs;
        inFlight.add(message.id);
      }
      const batch: Promise<void> = deliver(due).finally(() => {
        running.delete(batch);
        pump();
      });
      running.add(batch);
    }
  }

  const timer = setInterval(pump, options.pollMs ?? 100);
  timer.unref();

  return {
    url,
    endpoint: server.endpoint,
    consumeWith(next) {
      consume = next;
    },
    size: () => held.size,
    async close() {
      closing = true;
      clearInterval(timer);
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(running),
        new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS))),
      ]);
      clearTimeout(grace);
      await server.close();
    },
  };
}

/**
 * One queue per process and name, shared by whoever asks (reference-counted), as the local S3 is:
 * the sources runtime's functions live in this process and read one queue URL from its
 * environment, so two gateways in one process (the fault tests) share it too. The messages go to
 * the newest consumer still open. Closed with its last user.
 *
 * @example const queue = await acquireLocalQueue({ name: deliveryQueueName('local'), region, report });
 */
export async function acquireLocalQueue(options: LocalQueueOptions): Promise<LocalQueue> {
  let entry = sharedQueues.get(options.name);
  if (!entry) {
    const consumers: ((event: SQSEvent) => Promise<SQSBatchResponse | undefined>)[] = [];
    entry = { users: 0, consumers, started: startLocalQueue(options) };
    const created = entry;
    sharedQueues.set(options.name, created);
    created.started
      .then((queue) => queue.consumeWith((event) => (created.consumers.at(-1) ?? refuse)(event)))
      .catch(() => sharedQueues.delete(options.name));
  }
  const held = entry;
  held.users++;
  const queue = await held.started;
  let mine: ((event: SQSEvent) => Promise<SQSBatchResponse | undefined>) | undefined;
  let released = false;
  return {
    url: queue.url,
    endpoint: queue.endpoint,
    consumeWith(consume) {
      mine = consume;
      held.consumers.push(consume);
    },
    size: () => queue.size(),
    async close() {
      if (released) return;
      released = true;
      if (mine) held.consumers.splice(held.consumers.indexOf(mine), 1);
      if (--held.users > 0) return;
      sharedQueues.delete(options.name);
      await queue.close();
    },
  };
}

/** Messages that arrive while no consumer is open wait: the batch is failed and given again later. */
const refuse = async (event: SQSEvent): Promise<SQSBatchResponse> => ({
  batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })),
});

const sharedQueues = new Map<
  string,
  {
    users: number;
    consumers: ((event: SQSEvent) => Promise<SQSBatchResponse | undefined>)[];
    started: Promise<LocalQueue>;
  }
>();
