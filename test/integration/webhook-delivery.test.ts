/**
 * From an event to verified deliveries, against DynamoDB Local and receivers on this machine that
 * check every request with `standardwebhooks` (the specification's reference library): the fan-out
 * keeps one delivery per subscribed, enabled endpoint and never two for an event met again; an
 * attempt signs with the endpoint's secrets of the moment (both during a rotation), a 500 is tried
 * again under the same `webhook-id` when due, a 410 disables the endpoint, 5 days of failures
 * disable it, a schedule run out fails the delivery, and a delivery whose endpoint was disabled or
 * deleted fails without an attempt, saying why. And the functions' batches: the records the
 * tables' own streams hold (read from DynamoDB Local, let through by the fan-out's filters as its
 * event source mappings would) become verified deliveries through the queue of tasks.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesEventPattern } from '#infra/local/emulators/match-event-pattern';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { buildNote } from '#shared/domain/notes/build-note';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import { rotateSecrets } from '#shared/domain/webhooks/signing-secrets';
import { ATTEMPT_CLAIM_SECONDS, type DeliveryTask } from '#shared/domain/webhooks/webhook-delivery';
import type { StoredWebhookEndpoint } from '#shared/domain/webhooks/webhook-endpoint';
import { documentChanged, noteCreated, type WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import { logger } from '#shared/http/logger';
import { webhookSecretBox, webhookSecretSealer } from '#shared/secrets/webhook-secret-box';
import type { DeliveryQueue } from '#shared/store/delivery-queue';
import { parseDeliveryTask } from '#shared/store/delivery-queue';
import { documentClient } from '#shared/store/dynamo-client';
import type { TableId } from '#shared/store/table-specs';
import { bindTableStores, type TableStores } from '#shared/store/table-stores';
import { WEBHOOK_STREAM_SOURCES } from '#shared/webhook-functions';
import { type DeliverMessageDeps, deliverMessage } from '#shared/webhooks/deliver-message';
import { fanOutEvent } from '#shared/webhooks/fan-out-event';
import { deliverQueuedTasks, fanOutRecords } from '#shared/webhooks/run-webhook-functions';
import { readTableStream } from '#test/support/read-table-stream';
import { storedEndpoint } from '#test/support/stored-endpoint';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The schedule, shortened as a local stage may: at once, then 20 ms, then 40 ms. */
const SCHEDULE = [0, 20, 40];

interface Receipt {
  id: string;
  body: unknown;
  signatures: string[];
}

/** A receiver that verifies each request with `secrets` (any of them) and answers the next status of `answers`. */
interface Receiver {
  url: string;
  receipts: Receipt[];
  /** Requests that did not verify. */
  refused: string[];
  answers: number[];
  secrets: string[];
}

const servers: Server[] = [];
let stores: TableStores;
let deps: DeliverMessageDeps;
let dynamo: ReturnType<typeof workerDynamo>;

beforeAll(() => {
  dynamo = workerDynamo();
  const { endpoint, credentials, tables } = dynamo;
  pointAtLocalDynamo({ endpoint, credentials }, tables);
  stores = bindTableStores(documentClient(), tables);
  deps = {
    endpoints: stores.webhookEndpoints,
    deliveries: stores.webhookDeliveries,
    secrets: webhookSecretBox(),
    rules: 'local',
    schedule: SCHEDULE,
  };
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver verifying with `secrets`, answering `answers` in turn (then 200), each after the next of `holdsMs`. */
async function receiver(secrets: string[], answers: number[] = [], holdsMs: number[] = []): Promise<Receiver> {
  const state: Receiver = { url: '', receipts: [], refused: [], answers, secrets };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = request.headers as IncomingHttpHeaders & Record<string, string>;
      const verified = state.secrets.some((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      if (verified)
        state.receipts.push({
          id: String(headers['webhook-id']),
          body: JSON.parse(body),
          signatures: String(headers['webhook-signature']).split(' '),
        });
      else state.refused.push(body);
      const status = verified ? (state.answers.shift() ?? 200) : 400;
      setTimeout(() => response.writeHead(status).end(), holdsMs.shift() ?? 0);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  return state;
}

let endpointCount = 0;
async function addEndpoint(
  tenantId: string,
  url: string,
  events: WebhookEventType[] = ['note.created'],
  fields: Partial<StoredWebhookEndpoint> = {},
): Promise<StoredWebhookEndpoint> {
  const endpoint = storedEndpoint({ id: `ep_delivery-${++endpointCount}`, url, events, ...fields });
  await stores.webhookEndpoints.create(tenantId, endpoint, { limit: 100 });
  return endpoint;
}

const noteEvent = (tenantId: string) =>
  noteCreated(tenantId, 'conv-1', buildNote(`n-${Date.now()}-${Math.random()}`, new Date()));

/** Runs a task to its end, waiting out each retry, as the queue would. */
async function runToEnd(task: DeliveryTask, options: DeliverMessageDeps = deps): Promise<number> {
  let attempts = 0;
  for (;;) {
    const next = await deliverMessage(options, task.tenantId, task.key);
    attempts++;
    if (next.kind === 'done') return attempts;
    await new Promise((resolve) => setTimeout(resolve, next.afterMs));
  }
}

describe('fan-out', () => {
  it('keeps one delivery per enabled endpoint subscribed to the type, each delivered and verified, with the body of the event', async () => {
    const tenant = uniqueTenant('fan');
    const secret = newWebhookSecret();
    const a = await receiver([secret]);
    const b = await receiver([secret]);
    const other = await receiver([secret]);
    await addEndpoint(tenant, a.url, ['note.created'], { secrets: { current: secret } });
    await addEndpoint(tenant, b.url, ['voc.job.failed', 'note.created'], { secrets: { current: secret } });
    await addEndpoint(tenant, other.url, ['provisioning.document.changed'], { secrets: { current: secret } });
    await addEndpoint(tenant, other.url, ['note.created'], {
      secrets: { current: secret },
      status: 'disabled',
      disabledReason: 'paused',
    });
    const event = noteEvent(tenant);

    const tasks = await fanOutEvent(deps, tenant, event);
    expect(tasks).toHaveLength(2);
    for (const task of tasks) await runToEnd(task);

    for (const got of [a, b]) {
      expect(got.refused).toEqual([]);
      expect(got.receipts.map((receipt) => receipt.body)).toEqual([JSON.parse(JSON.stringify(event))]);
    }
    expect(a.receipts[0]!.id).not.toBe(b.receipts[0]!.id);
    expect(other.receipts).toEqual([]);
    for (const task of tasks)
      expect(await stores.webhookDeliveries.get(tenant, task.key)).toMatchObject({
        status: 'delivered',
        attempts: 1,
        lastStatus: 200,
        messageId: task.key.messageId,
      });
  });

  it('an event met again keeps no second delivery; before its first attempt it hands back the same task, after it none', async () => {
    const tenant = uniqueTenant('fan-again');
    const secret = newWebhookSecret();
    const got = await receiver([secret]);
    await addEndpoint(tenant, got.url, ['provisioning.document.changed'], { secrets: { current: secret } });
    const event = documentChanged(
      tenant,
      { collection: 'bots', documentId: 'bot-1', etag: 'k3Jv0cQ9', version: 2, change: 'merged' },
      new Date(),
    );

    const first = await fanOutEvent(deps, tenant, event);
    expect(await fanOutEvent(deps, tenant, event)).toEqual(first);
    await runToEnd(first[0]!);
    await runToEnd(first[0]!);
    expect(await fanOutEvent(deps, tenant, event)).toEqual([]);
    expect(got.receipts).toHaveLength(1);
  });
});

describe('attempts', () => {
  it('a 500 is tried again when due, under the same webhook-id; a task early for its attempt waits the rest', async () => {
    const tenant = uniqueTenant('retry');
    const secret = newWebhookSecret();
    const got = await receiver([secret], [500]);
    const endpoint = await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    const [task] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    // A wait long enough to ask again before it is over.
    const slower: DeliverMessageDeps = { ...deps, schedule: [0, 400] };

    const first = await deliverMessage(slower, tenant, task!.key);
    expect(first).toEqual({ kind: 'retry', afterMs: 400 });
    const pending = await stores.webhookDeliveries.get(tenant, task!.key);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500' });
    expect(pending?.nextAttemptAt).toBeDefined();
    expect((await stores.webhookEndpoints.get(tenant, endpoint.id))?.failingSince).toBeGreaterThan(0);

    const early = await deliverMessage(slower, tenant, task!.key);
    expect(early.kind).toBe('retry');
    expect(got.receipts).toHaveLength(1);

    await runToEnd(task!, slower);
    expect(got.receipts.map((receipt) => receipt.id)).toEqual([task!.key.messageId, task!.key.messageId]);
    expect(got.refused).toEqual([]);
    expect(await stores.webhookDeliveries.get(tenant, task!.key)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect((await stores.webhookEndpoints.get(tenant, endpoint.id))?.failingSince).toBeUndefined();
  });

  it('a schedule run out fails the delivery, saying how many attempts and the last answer', async () => {
    const tenant = uniqueTenant('give-up');
    const secret = newWebhookSecret();
    const got = await receiver([secret], [500, 503, 500]);
    await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    const [task] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    expect(await runToEnd(task!)).toBe(3);
    expect(await stores.webhookDeliveries.get(tenant, task!.key)).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastError: '3 attempts failed, the last with HTTP 500',
    });
  });

  it('a 410 disables the endpoint at once; its next delivery fails without an attempt, saying why', async () => {
    const tenant = uniqueTenant('gone');
    const secret = newWebhookSecret();
    const got = await receiver([secret], [410]);
    const endpoint = await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    const [task] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    expect(await runToEnd(task!)).toBe(1);
    const disabled = await stores.webhookEndpoints.get(tenant, endpoint.id);
    expect(disabled?.status).toBe('disabled');
    expect(disabled?.disabledReason).toMatch(/^the receiver answered 410 Gone: it no longer takes these events \(at /);

    const [later] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    expect(later).toBeUndefined();
    // A delivery made before it was disabled, attempted after: stopped, not sent.
    const kept = { ...task!.key, messageId: 'msg_kept-before-410' };
    await stores.webhookDeliveries.record(
      tenant,
      { ...kept, type: 'note.created', body: '{}', status: 'pending', attempts: 0 },
      Date.now(),
    );
    expect(await deliverMessage(deps, tenant, kept)).toEqual({ kind: 'done' });
    expect((await stores.webhookDeliveries.get(tenant, kept))?.lastError).toMatch(
      /^not sent: the endpoint is disabled \(the receiver answered 410 Gone/,
    );
    expect(got.receipts).toHaveLength(1);
  });

  it('an endpoint failing for 5 days is disabled at its next failure, saying since when', async () => {
    const tenant = uniqueTenant('five-days');
    const secret = newWebhookSecret();
    const got = await receiver([secret], [500]);
    const endpoint = await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    const sixDaysAgo = Date.now() - 6 * DAY_MS;
    await stores.webhookEndpoints.noteFailure(tenant, endpoint.id, sixDaysAgo);
    const [task] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    expect(await deliverMessage(deps, tenant, task!.key)).toEqual({ kind: 'done' });
    const disabled = await stores.webhookEndpoints.get(tenant, endpoint.id);
    expect(disabled?.status).toBe('disabled');
    expect(disabled?.disabledReason).toContain(
      `its deliveries have failed for 5 days, since ${new Date(sixDaysAgo).toISOString()}`,
    );
    expect((await stores.webhookDeliveries.get(tenant, task!.key))?.status).toBe('failed');
  });

  it('a receiver that answers slowly time after time is paused, saying why; a quick answer ends the streak', async () => {
    const tenant = uniqueTenant('slow');
    const secret = newWebhookSecret();
    const slow = { ...deps, slow: { answerMs: 150, inARow: 3 } };
    // Slow, slow, quick, then slow three times: paused at the last.
    const got = await receiver([secret], [], [300, 300, 0, 300, 300, 300]);
    const endpoint = await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    for (let i = 0; i < 5; i++)
      for (const task of await fanOutEvent(deps, tenant, noteEvent(tenant))) await runToEnd(task, slow);
    expect((await stores.webhookEndpoints.get(tenant, endpoint.id))?.status).toBe('enabled');
    // Two events; the first's attempt pauses the endpoint, the second's was pending by then.
    const [sixth] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    const [pending] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    await runToEnd(sixth!, slow);
    const paused = await stores.webhookEndpoints.get(tenant, endpoint.id);
    expect(paused?.status).toBe('disabled');
    expect(paused?.disabledReason).toMatch(
      /^its receiver took 0.15 s or more to answer 3 attempts in a row: answer 2xx at once and do the work after, then enable it \(at /,
    );
    // Every attempt was delivered; the pending one stops without one, saying why.
    expect(got.receipts).toHaveLength(6);
    expect(await deliverMessage(slow, tenant, pending!.key)).toEqual({ kind: 'done' });
    expect((await stores.webhookDeliveries.get(tenant, pending!.key))?.lastError).toMatch(
      /^not sent: the endpoint is disabled \(its receiver took 0.15 s/,
    );
    expect(got.receipts).toHaveLength(6);
  });

  it("counts the receiver's answer time toward a slow streak, not the claim's write before it", async () => {
    const tenant = uniqueTenant('slow-claim');
    const secret = newWebhookSecret();
    const got = await receiver([secret]);
    const endpoint = await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    const slowClaims: DeliverMessageDeps = {
      ...deps,
      slow: { answerMs: 150, inARow: 1 },
      deliveries: {
        ...deps.deliveries,
        claimAttempt: async (...args) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return deps.deliveries.claimAttempt(...args);
        },
      },
    };
    const [task] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    expect(await deliverMessage(slowClaims, tenant, task!.key)).toEqual({ kind: 'done' });
    expect(got.receipts).toHaveLength(1);
    expect(await stores.webhookEndpoints.get(tenant, endpoint.id)).toMatchObject({ status: 'enabled' });
  });

  it('a secret sealed at rest signs as itself; sealed for one endpoint, it opens for no other', async () => {
    const tenant = uniqueTenant('sealed');
    const secret = newWebhookSecret();
    const id = `ep_sealed-${++endpointCount}`;
    // As the registration seals it: to the public key of the stage's webhook secret key.
    const sealed = await webhookSecretSealer().seal(secret, { tenantId: tenant, endpointId: id });
    expect(sealed).not.toContain(secret);
    const got = await receiver([secret]);
    await addEndpoint(tenant, got.url, ['note.created'], { id, secrets: { current: sealed } });
    for (const task of await fanOutEvent(deps, tenant, noteEvent(tenant))) await runToEnd(task);
    expect(got.refused).toEqual([]);
    expect(got.receipts).toHaveLength(1);
    await expect(deps.secrets.open(sealed, { tenantId: tenant, endpointId: 'ep_other' })).rejects.toThrow();
    await expect(deps.secrets.open(sealed, { tenantId: uniqueTenant('other'), endpointId: id })).rejects.toThrow();
  });

  it('during a rotation both secrets sign, the new one first: a receiver holding either verifies (secrets kept before sealing, used as they are)', async () => {
    const tenant = uniqueTenant('rotation');
    const old = newWebhookSecret();
    const rotated = rotateSecrets({ current: old }, newWebhookSecret(), Date.now());
    const withOld = await receiver([old]);
    const withNew = await receiver([rotated.current]);
    await addEndpoint(tenant, withOld.url, ['note.created'], { secrets: rotated });
    await addEndpoint(tenant, withNew.url, ['note.created'], { secrets: rotated });
    for (const task of await fanOutEvent(deps, tenant, noteEvent(tenant))) await runToEnd(task);
    for (const got of [withOld, withNew]) {
      expect(got.refused).toEqual([]);
      expect(got.receipts).toHaveLength(1);
      expect(got.receipts[0]!.signatures).toHaveLength(2);
    }
    // Once its 24 hours are over, the replaced secret signs no more.
    const over = { ...rotated, previous: { secret: old, until: Date.now() - 1 } };
    const onlyNew = await receiver([rotated.current]);
    const oldOnly = await receiver([old]);
    await addEndpoint(tenant, onlyNew.url, ['provisioning.document.changed'], { secrets: over });
    await addEndpoint(tenant, oldOnly.url, ['provisioning.document.changed'], { secrets: over });
    const event = documentChanged(
      tenant,
      { collection: 'bots', documentId: 'bot-1', etag: 'v2', version: 2, change: 'replaced' },
      new Date(),
    );
    for (const task of await fanOutEvent(deps, tenant, event)) await runToEnd(task);
    expect(onlyNew.receipts[0]!.signatures).toHaveLength(1);
    expect(oldOnly.receipts).toEqual([]);
    // Its 400 is a failure like any other: tried on the whole schedule.
    expect(oldOnly.refused).toHaveLength(SCHEDULE.length);
  });

  it('copies of one task make one attempt, as long as its claim holds; a delivery whose endpoint was deleted fails without one', async () => {
    const tenant = uniqueTenant('deleted');
    const secret = newWebhookSecret();
    const got = await receiver([secret]);
    const endpoint = await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    const [task] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    const copies = Array.from({ length: 3 }, () => deliverMessage(deps, tenant, task!.key));
    expect(await Promise.all(copies)).toEqual([{ kind: 'done' }, { kind: 'done' }, { kind: 'done' }]);
    expect(got.receipts.map(({ id }) => id)).toEqual([task!.key.messageId]);
    expect(await stores.webhookDeliveries.get(tenant, task!.key)).toMatchObject({ status: 'delivered', attempts: 1 });

    // Claimed by a run that died before it posted: no copy posts until the claim lapses.
    const [orphan] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    const claimedAt = Date.now();
    expect(
      await stores.webhookDeliveries.claimAttempt(
        tenant,
        orphan!.key,
        0,
        claimedAt,
        claimedAt + ATTEMPT_CLAIM_SECONDS * 1000,
      ),
    ).toBe(true);
    expect(await deliverMessage(deps, tenant, orphan!.key)).toEqual({ kind: 'done' });
    expect(got.receipts).toHaveLength(1);
    const lapsed = () => claimedAt + ATTEMPT_CLAIM_SECONDS * 1000;
    expect(await deliverMessage({ ...deps, now: lapsed }, tenant, orphan!.key)).toEqual({ kind: 'done' });
    expect(got.receipts.map(({ id }) => id)).toEqual([task!.key.messageId, orphan!.key.messageId]);
    expect(await stores.webhookDeliveries.get(tenant, orphan!.key)).toMatchObject({ status: 'delivered', attempts: 1 });

    const [next] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    await stores.webhookEndpoints.remove(tenant, endpoint.id);
    expect(await deliverMessage(deps, tenant, next!.key)).toEqual({ kind: 'done' });
    expect(await stores.webhookDeliveries.get(tenant, next!.key)).toMatchObject({
      status: 'failed',
      attempts: 0,
      lastError: 'not sent: the endpoint was deleted',
    });
  });
});

describe("the functions' batches, from the tables' own streams", () => {
  /** The tasks queued, with their delay, as the queue would hold them. */
  function memoryQueue(): DeliveryQueue & { held: { body: string; delayMs: number }[] } {
    const held: { body: string; delayMs: number }[] = [];
    return {
      held,
      send: async (tasks, delayMs) => void held.push(...tasks.map((task) => ({ body: JSON.stringify(task), delayMs }))),
    };
  }

  /** The records of `table`'s stream of `tenant` its source's filter lets through, as Lambda hands them over. */
  async function streamRecords(table: TableId, tenant: string) {
    const pattern = WEBHOOK_STREAM_SOURCES.find((source) => source.table === table)!.pattern;
    return (await readTableStream(dynamo, dynamo.tables[table]))
      .filter((record) => JSON.stringify(record.dynamodb?.NewImage ?? {}).includes(tenant))
      .filter((record) => matchesEventPattern(pattern, record))
      .map((record) => ({
        ...record,
        eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${dynamo.tables[table]}/stream/x`,
      }));
  }

  it('a note, an ended job and API writes of a document become deliveries; an import and a job still started do not', async () => {
    const tenant = uniqueTenant('streams');
    const secret = newWebhookSecret();
    const got = await receiver([secret]);
    await addEndpoint(
      tenant,
      got.url,
      ['note.created', 'voc.job.completed', 'voc.job.failed', 'provisioning.document.changed'],
      {
        secrets: { current: secret },
      },
    );
    await stores.conversations.putConversation(tenant, conversationWithDefaults({ id: 'conv-1' }));
    const note = { ...buildNote('n-streams', new Date()), body: 'not in the webhook' };
    await stores.conversations.addNote(tenant, 'conv-1', note, new Date());
    await stores.documents.replace(tenant, 'bots', 'bot-1', '{"v":1}');
    await stores.documents.update(tenant, 'bots', 'bot-1', () => '{"v":2}');
    await stores.documents.replace(tenant, 'bots', 'imported', '{"v":1}', { announce: false });
    const started = Date.now() - 60_000;
    await stores.vocJobs.put(tenant, { id: 'job-1', status: 'started', started, file: 'f.wav', recordingId: 'rec-1' });
    await stores.vocJobs.finish(tenant, { id: 'job-1' }, 'failed', { reason: 'not audio' });

    const queue = memoryQueue();
    const fanOut = { endpoints: stores.webhookEndpoints, deliveries: stores.webhookDeliveries, queue, logger };
    for (const table of ['conversations', 'documents', 'vocJobs'] as const) {
      const records = await streamRecords(table, tenant);
      const answer = await fanOutRecords(fanOut, records as never, () => table);
      expect(answer).toEqual({ batchItemFailures: [] });
    }
    expect(queue.held.map((task) => task.delayMs)).toEqual([0, 0, 0, 0]);

    const sqsRecords = queue.held.map((task, index) => ({ messageId: `m-${index}`, body: task.body }));
    const settled = await deliverQueuedTasks({ ...deps, queue, logger }, sqsRecords as never);
    expect(settled).toEqual({ batchItemFailures: [] });
    expect(got.refused).toEqual([]);
    const received = got.receipts.map((receipt) => receipt.body as { type: string; data: Record<string, unknown> });
    expect(received.map((body) => body.type).sort()).toEqual([
      'note.created',
      'provisioning.document.changed',
      'provisioning.document.changed',
      'voc.job.failed',
    ]);
    const changes = received
      .filter((body) => body.type === 'provisioning.document.changed')
      .map((body) => body.data.change);
    expect(changes.sort()).toEqual(['created', 'merged']);
    expect(JSON.stringify(received)).not.toContain('not in the webhook');
    expect(received.find((body) => body.type === 'voc.job.failed')?.data.job).toMatchObject({
      id: 'job-1',
      failureReason: 'not audio',
    });
  });

  it('a record whose fan-out fails is reported with those after it given again: the ones before are queued, none is kept twice, none lost', async () => {
    const tenant = uniqueTenant('fan-fails');
    const secret = newWebhookSecret();
    const got = await receiver([secret]);
    await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    await stores.conversations.putConversation(tenant, conversationWithDefaults({ id: 'conv-1' }));
    for (const id of ['n-1', 'n-2', 'n-3'])
      await stores.conversations.addNote(tenant, 'conv-1', { ...buildNote(id, new Date()), body: id }, new Date());
    const records = await streamRecords('conversations', tenant);
    expect(records).toHaveLength(3);
    const sequenceOf = (index: number) => records[index]!.dynamodb?.SequenceNumber;

    // The second note's delivery cannot be kept once; the first and third are kept side by side with it.
    let failOnce = true;
    const flaky = {
      ...stores.webhookDeliveries,
      record: (...args: Parameters<typeof stores.webhookDeliveries.record>) => {
        if (failOnce && args[1].body.includes('"n-2"')) {
          failOnce = false;
          return Promise.reject(new Error('store busy'));
        }
        return stores.webhookDeliveries.record(...args);
      },
    };
    const queue = memoryQueue();
    const fanOut = { endpoints: stores.webhookEndpoints, deliveries: flaky, queue, logger };
    expect(await fanOutRecords(fanOut, records as never, () => 'conversations')).toEqual({
      batchItemFailures: [{ itemIdentifier: sequenceOf(1) }],
    });
    const queuedNotes = () =>
      queue.held.map((held) => (parseDeliveryTask(held.body) ?? { key: { messageId: '' } }).key.messageId);
    expect(queue.held).toHaveLength(1);

    // The stream gives the batch again from the failed record, as Lambda does.
    expect(await fanOutRecords(fanOut, records.slice(1) as never, () => 'conversations')).toEqual({
      batchItemFailures: [],
    });
    expect(new Set(queuedNotes()).size).toBe(3);
    const sqsRecords = queue.held.map((held, index) => ({ messageId: `m-${index}`, body: held.body }));
    await deliverQueuedTasks({ ...deps, queue: memoryQueue(), logger }, sqsRecords as never);
    const bodies = got.receipts.map((receipt) => (receipt.body as { data: { note: { id: string } } }).data.note.id);
    expect(bodies.sort()).toEqual(['n-1', 'n-2', 'n-3']);
    expect(new Set(got.receipts.map((receipt) => receipt.id)).size).toBe(3);

    // A queue that refuses the tasks fails the batch from its first record, and a second pass queues them all.
    const refusing = { ...fanOut, queue: { send: () => Promise.reject(new Error('queue down')) } };
    const again = await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    expect(await fanOutRecords(refusing, records as never, () => 'conversations')).toEqual({
      batchItemFailures: [{ itemIdentifier: sequenceOf(0) }],
    });
    const retried = memoryQueue();
    expect(await fanOutRecords({ ...fanOut, queue: retried }, records as never, () => 'conversations')).toEqual({
      batchItemFailures: [],
    });
    expect(retried.held.map((held) => parseDeliveryTask(held.body)?.key.endpointId)).toEqual([
      again.id,
      again.id,
      again.id,
    ]);
  });

  it('a failed attempt queues its task again with the wait; a message that is no task is dropped, a store fault is left for the queue', async () => {
    const tenant = uniqueTenant('batches');
    const secret = newWebhookSecret();
    const got = await receiver([secret], [503]);
    await addEndpoint(tenant, got.url, ['note.created'], { secrets: { current: secret } });
    const [task] = await fanOutEvent(deps, tenant, noteEvent(tenant));
    const queue = memoryQueue();
    const records = [
      { messageId: 'task', body: JSON.stringify(task) },
      { messageId: 'junk', body: '{"not":"a task"}' },
    ];
    expect(await deliverQueuedTasks({ ...deps, queue, logger }, records as never)).toEqual({ batchItemFailures: [] });
    expect(queue.held).toEqual([{ body: JSON.stringify(task), delayMs: SCHEDULE[1] }]);
    expect(parseDeliveryTask(queue.held[0]!.body)).toEqual(task);

    const broken = { ...deps, deliveries: { ...deps.deliveries, get: () => Promise.reject(new Error('store down')) } };
    expect(await deliverQueuedTasks({ ...broken, queue, logger }, records.slice(0, 1) as never)).toEqual({
      batchItemFailures: [{ itemIdentifier: 'task' }],
    });
  });
});
