/**
 * The sweeper of pending deliveries, against DynamoDB Local, each test on tables of its own (a
 * sweep reads every tenant's deliveries, so another test's would be found too) and its clock
 * given, never waited for: a pending delivery whose task was lost is found past its grace and
 * delivered; a wait longer than the queue's longest delay makes no task until the run near its
 * time, which queues one with the rest of the wait; every write that ends a delivery takes it out
 * of the sweep index; a sweep right after another queues nothing again; a run reads at most its
 * page cap of each shard, and the next goes on. And through a local gateway: a start sends what
 * the last run of the local stack left pending (its queue was in memory). The attempts are made
 * for real, to receivers on this machine.
 */
import { createServer, type Server } from 'node:http';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { bindGateway } from '#infra/local/serve-gateway';
import { buildNote } from '#shared/domain/notes/build-note';
import {
  DELIVERY_SWEEP_TIMING,
  LOST_TASK_GRACE_MS,
  SWEEP_SHARDS,
  sweepShardOf,
} from '#shared/domain/webhooks/delivery-sweep';
import { type DeliveryKey, type DeliveryTask, deliverySortKey } from '#shared/domain/webhooks/webhook-delivery';
import { noteCreated } from '#shared/domain/webhooks/webhook-events';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import { logger } from '#shared/http/logger';
import { webhookSecretBox } from '#shared/secrets/webhook-secret-box';
import type { DeliveryQueue } from '#shared/store/delivery-queue';
import { documentClient } from '#shared/store/dynamo-client';
import { bindTableStores, type TableStores } from '#shared/store/table-stores';
import type { DeliverMessageDeps } from '#shared/webhooks/deliver-message';
import { fanOutEvent } from '#shared/webhooks/fan-out-event';
import { deliverQueuedTasks } from '#shared/webhooks/run-webhook-functions';
import { type SweepDeps, sweepDeliveries } from '#shared/webhooks/sweep-deliveries';
import { storedEndpoint } from '#test/support/stored-endpoint';
import { uniqueTenant } from '#test/support/test-api';
import { tablesOfItsOwn, workerDynamo } from '#test/support/worker-dynamo';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const { leadMs } = DELIVERY_SWEEP_TIMING;

/**
 * A receiver that notes the `webhook-id` of each request and answers the next of `answers` (then
 * 200). It checks no signature: the attempts here are signed at the test's clock, hours from the
 * receiver's (the signatures' own tests are in webhook-delivery.test.ts).
 */
interface Receiver {
  url: string;
  ids: string[];
}

const servers: Server[] = [];

beforeAll(async () => {
  const { endpoint, credentials } = workerDynamo();
  // The process's store client, for the stores each test binds to tables of its own.
  pointAtLocalDynamo({ endpoint, credentials }, await tablesOfItsOwn('sweep'));
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver(answers: number[] = []): Promise<Receiver> {
  const state: Receiver = { url: '', ids: [] };
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.ids.push(String(request.headers['webhook-id']));
      response.writeHead(answers.shift() ?? 200).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  return state;
}

/** What a queue was sent: each task with its delay. */
function memoryQueue(): DeliveryQueue & { held: { task: DeliveryTask; delayMs: number }[] } {
  const held: { task: DeliveryTask; delayMs: number }[] = [];
  return { held, send: async (tasks, delayMs) => void held.push(...tasks.map((task) => ({ task, delayMs }))) };
}

interface Setup {
  stores: TableStores;
  /** The deliveries' attempts, at the clock `now` gives. */
  deliver: (now: number, schedule?: readonly number[]) => DeliverMessageDeps;
  /** A sweep at `now` that queues to `queue`. */
  sweep: (now: number, queue: DeliveryQueue, limits?: SweepDeps['limits']) => ReturnType<typeof sweepDeliveries>;
  /** A new tenant with an endpoint to `url`, subscribed to notes. */
  endpoint: (url: string) => Promise<{ tenant: string; endpointId: string }>;
}

/** Stores on tables of the test's own: the sweep index holds this test's deliveries alone. */
async function setup(): Promise<Setup> {
  const stores = bindTableStores(documentClient(), await tablesOfItsOwn('sweep'));
  let endpoints = 0;
  return {
    stores,
    deliver: (now, schedule = [0, 5_000]) => ({
      // Every store of the tables, for whichever an attempt reads besides these two.
      ...stores,
      endpoints: stores.webhookEndpoints,
      deliveries: stores.webhookDeliveries,
      secrets: webhookSecretBox(),
      rules: 'local',
      schedule,
      now: () => now,
    }),
    sweep: (now, queue, limits) =>
      sweepDeliveries({ deliveries: stores.webhookDeliveries, queue, logger, limits }, now),
    async endpoint(url) {
      const tenant = uniqueTenant('sweep');
      const endpoint = storedEndpoint({
        id: `ep_sweep-${++endpoints}`,
        url,
        events: ['note.created'],
        secrets: { current: newWebhookSecret() },
      });
      await stores.webhookEndpoints.create(tenant, endpoint, { limit: 100 });
      return { tenant, endpointId: endpoint.id };
    },
  };
}

/** The event of a note of `tenant`'s, at `atMs`. */
const noteEvent = (tenant: string, atMs: number) =>
  noteCreated(tenant, 'conv-1', buildNote(`n-${atMs}-${Math.random()}`, new Date(atMs)));

/** The tasks held, as the queue hands them to the delivery function. */
const records = (held: readonly { task: DeliveryTask }[]) =>
  held.map(({ task }, index) => ({ messageId: `m-${index}`, body: JSON.stringify(task) })) as never;

/** Where the delivery at `key` is in the sweep index, if it is: its time there. */
async function inIndex(stores: TableStores, key: DeliveryKey): Promise<string | undefined> {
  const found = [];
  for (let shard = 0; shard < SWEEP_SHARDS; shard++) {
    const { deliveries } = await stores.webhookDeliveries.dueForSweep(shard, Date.now() + 400 * 24 * HOUR, {
      limit: 1000,
    });
    found.push(...deliveries);
  }
  return found.find((delivery) => deliverySortKey(delivery.key) === deliverySortKey(key))?.sweepAt;
}

describe('a pending delivery whose task was lost', () => {
  it('is found by the first sweep past its grace, its task queued at once, and delivered', async () => {
    const { stores, deliver, sweep, endpoint } = await setup();
    const got = await receiver();
    const { tenant } = await endpoint(got.url);
    const t0 = Date.now();
    // The fan-out kept it; its task never reached the queue (retention passed, a local stop, an undo that failed).
    const [task] = await fanOutEvent(deliver(t0), tenant, noteEvent(tenant, t0));
    expect(await inIndex(stores, task!.key)).toBe(new Date(t0 + LOST_TASK_GRACE_MS).toISOString());

    const early = memoryQueue();
    expect((await sweep(t0 + LOST_TASK_GRACE_MS - 1000, early)).found).toBe(0);
    expect(early.held).toEqual([]);

    const queue = memoryQueue();
    expect(await sweep(t0 + LOST_TASK_GRACE_MS, queue)).toEqual({
      found: 1,
      queued: 1,
      moved: 1,
      more: false,
      errors: 0,
    });
    expect(queue.held).toEqual([{ task: { tenantId: tenant, key: task!.key }, delayMs: 0 }]);

    const after = memoryQueue();
    await deliverQueuedTasks({ ...deliver(t0 + LOST_TASK_GRACE_MS), queue: after, logger }, records(queue.held));
    expect(got.ids).toEqual([task!.key.messageId]);
    expect(await stores.webhookDeliveries.get(tenant, task!.key)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await inIndex(stores, task!.key)).toBeUndefined();
  });
});

describe('a wait longer than the queue can carry', () => {
  it('makes no task; the sweep a lead before its time queues one with the rest of the wait, and the next sweep none', async () => {
    const { stores, deliver, sweep, endpoint } = await setup();
    const got = await receiver([500]);
    const { tenant } = await endpoint(got.url);
    const t0 = Date.now();
    const twoHours = [0, 2 * HOUR];
    const [task] = await fanOutEvent(deliver(t0), tenant, noteEvent(tenant, t0));

    // The first attempt fails; its next is 2 h off: recorded, and nothing queued (not a hop every 15 minutes).
    const queue = memoryQueue();
    await deliverQueuedTasks({ ...deliver(t0, twoHours), queue, logger }, records([{ task: task! }]));
    expect(got.ids).toHaveLength(1);
    expect(queue.held).toEqual([]);
    const due = t0 + 2 * HOUR;
    expect(await stores.webhookDeliveries.get(tenant, task!.key)).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(due).toISOString(),
    });
    expect(await inIndex(stores, task!.key)).toBe(new Date(due - leadMs).toISOString());

    // Every sweep until then leaves it; the one at the lead queues it with the rest of its wait.
    for (const at of [t0 + MINUTE, t0 + HOUR, due - leadMs - 1000]) {
      const before = memoryQueue();
      expect((await sweep(at, before)).found).toBe(0);
    }
    const near = memoryQueue();
    expect((await sweep(due - leadMs + 10_000, near)).queued).toBe(1);
    expect(near.held).toEqual([{ task: { tenantId: tenant, key: task!.key }, delayMs: leadMs - 10_000 }]);
    const next = memoryQueue();
    expect((await sweep(due - leadMs + 70_000, next)).found).toBe(0);
    expect(next.held).toEqual([]);

    // Its task arrives at its time: the second attempt is made and ends it.
    await deliverQueuedTasks({ ...deliver(due, twoHours), queue: next, logger }, records(near.held));
    expect(got.ids).toEqual([task!.key.messageId, task!.key.messageId]);
    expect(await stores.webhookDeliveries.get(tenant, task!.key)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(await inIndex(stores, task!.key)).toBeUndefined();
  });
});

describe('the sweep index holds the pending deliveries alone', () => {
  it('a delivery delivered, failed, stopped or whose recover was undone leaves it; a recover or a short wait puts it back', async () => {
    const { stores } = await setup();
    const deliveries = stores.webhookDeliveries;
    const tenant = uniqueTenant('sweep-index');
    const t0 = Date.now();
    let count = 0;
    const pending = async () => {
      const key = { endpointId: 'ep_index', at: new Date(t0).toISOString(), messageId: `msg_index-${++count}` };
      await deliveries.record(tenant, { ...key, type: 'note.created', body: '{}', status: 'pending', attempts: 0 }, t0);
      expect(await inIndex(stores, key)).toBe(new Date(t0 + LOST_TASK_GRACE_MS).toISOString());
      return key;
    };
    const at = new Date(t0 + 1000).toISOString();

    const delivered = await pending();
    expect(await deliveries.recordAttempt(tenant, delivered, 0, { status: 'delivered', at, lastStatus: 200 })).toBe(
      true,
    );
    expect(await inIndex(stores, delivered)).toBeUndefined();

    const failed = await pending();
    await deliveries.recordAttempt(tenant, failed, 0, { status: 'failed', at, lastStatus: 410 });
    expect(await inIndex(stores, failed)).toBeUndefined();

    const stopped = await pending();
    expect(await deliveries.stop(tenant, stopped, 0, 'not sent: the endpoint was deleted')).toBe(true);
    expect(await inIndex(stores, stopped)).toBeUndefined();

    // A short wait: due at its next attempt, and past it by the grace if its task is lost.
    const retried = await pending();
    const nextAttemptAt = new Date(t0 + 1000 + 5 * MINUTE).toISOString();
    await deliveries.recordAttempt(tenant, retried, 0, { status: 'pending', at, lastStatus: 500, nextAttemptAt });
    expect(await inIndex(stores, retried)).toBe(new Date(Date.parse(nextAttemptAt) + LOST_TASK_GRACE_MS).toISOString());

    // A recover makes a failed one pending (in), and its undo failed again (out).
    const reopenedAt = t0 + HOUR;
    expect(await deliveries.reopen(tenant, failed, undefined, reopenedAt)).toBe(true);
    expect(await inIndex(stores, failed)).toBe(new Date(reopenedAt + LOST_TASK_GRACE_MS).toISOString());
    await deliveries.undoReopen(tenant, failed, 1);
    expect(await deliveries.get(tenant, failed)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await inIndex(stores, failed)).toBeUndefined();

    // Put as delivered or failed (an import of a kept delivery): never in it.
    const kept = { endpointId: 'ep_index', at: new Date(t0).toISOString(), messageId: 'msg_index-kept' };
    await deliveries.record(tenant, { ...kept, type: 'note.created', body: '{}', status: 'failed', attempts: 8 }, t0);
    expect(await inIndex(stores, kept)).toBeUndefined();
  });
});

describe('two sweeps', () => {
  it('the second right after the first queues nothing again; an attempt between a read and its move keeps its own time', async () => {
    const { stores, sweep } = await setup();
    const tenant = uniqueTenant('sweep-twice');
    const t0 = Date.now();
    const key = { endpointId: 'ep_twice', at: new Date(t0).toISOString(), messageId: 'msg_twice' };
    await stores.webhookDeliveries.record(
      tenant,
      { ...key, type: 'note.created', body: '{}', status: 'pending', attempts: 0 },
      t0,
    );
    const due = t0 + LOST_TASK_GRACE_MS;

    const first = memoryQueue();
    expect((await sweep(due, first)).queued).toBe(1);
    const second = memoryQueue();
    expect(await sweep(due + 1000, second)).toEqual({ found: 0, queued: 0, moved: 0, more: false, errors: 0 });
    expect(second.held).toEqual([]);
    // Once the grace has passed again with no attempt, that task is presumed lost too.
    const later = memoryQueue();
    expect((await sweep(due + LOST_TASK_GRACE_MS, later)).queued).toBe(1);

    // Read by a sweep, then attempted before the sweep moves it: the attempt's time stays.
    const shard = sweepShardOf(`${tenant}#${key.endpointId}`, deliverySortKey(key));
    const [read] = (await stores.webhookDeliveries.dueForSweep(shard, due + 2 * LOST_TASK_GRACE_MS, { limit: 10 }))
      .deliveries;
    expect(read?.key).toEqual(key);
    const nextAttemptAt = new Date(due + 2 * LOST_TASK_GRACE_MS + MINUTE).toISOString();
    const at = new Date(due + 2 * LOST_TASK_GRACE_MS).toISOString();
    await stores.webhookDeliveries.recordAttempt(tenant, key, 0, {
      status: 'pending',
      at,
      lastStatus: 500,
      nextAttemptAt,
    });
    expect(await stores.webhookDeliveries.moveSweep(tenant, key, read!, due + 5 * LOST_TASK_GRACE_MS)).toBe(false);
    expect(await inIndex(stores, key)).toBe(new Date(Date.parse(nextAttemptAt) + LOST_TASK_GRACE_MS).toISOString());
  });
});

describe('a queue that refuses', () => {
  it('leaves the delivery due, its time unmoved: the next sweep sends its task', async () => {
    const { stores, sweep } = await setup();
    const tenant = uniqueTenant('sweep-refused');
    const t0 = Date.now();
    const key = { endpointId: 'ep_refused', at: new Date(t0).toISOString(), messageId: 'msg_refused' };
    await stores.webhookDeliveries.record(
      tenant,
      { ...key, type: 'note.created', body: '{}', status: 'pending', attempts: 0 },
      t0,
    );
    const due = t0 + LOST_TASK_GRACE_MS;
    const refusing: DeliveryQueue = {
      send: () => Promise.reject(new Error('the delivery queue refused 1 of 1 tasks')),
    };
    expect(await sweep(due, refusing)).toEqual({ found: 1, queued: 0, moved: 0, more: false, errors: 1 });
    expect(await inIndex(stores, key)).toBe(new Date(due).toISOString());
    const queue = memoryQueue();
    expect((await sweep(due + 1000, queue)).queued).toBe(1);
    expect(queue.held.map(({ task }) => task.key)).toEqual([key]);
  });
});

describe('a run', () => {
  it('reads at most its pages of each shard, oldest first; the next runs go on until every delivery is queued once', async () => {
    const { stores, sweep } = await setup();
    const tenant = uniqueTenant('sweep-cap');
    const t0 = Date.now();
    const keys = Array.from({ length: 40 }, (_, index) => ({
      endpointId: 'ep_cap',
      at: new Date(t0 + index).toISOString(),
      messageId: `msg_cap-${String(index).padStart(2, '0')}`,
    }));
    await Promise.all(
      keys.map((key, index) =>
        stores.webhookDeliveries.record(
          tenant,
          { ...key, type: 'note.created', body: '{}', status: 'pending', attempts: 0 },
          t0 + index,
        ),
      ),
    );
    const shardOf = (key: DeliveryKey) => sweepShardOf(`${tenant}#${key.endpointId}`, deliverySortKey(key));
    const perShard = Array.from({ length: SWEEP_SHARDS }, (_, shard) => keys.filter((key) => shardOf(key) === shard));
    const limits = { pageSize: 2, pagesPerShard: 1 };
    const now = t0 + 100 + LOST_TASK_GRACE_MS;

    const first = memoryQueue();
    const outcome = await sweep(now, first, limits);
    // Each shard's two longest due, and no more.
    const expected = perShard.flatMap((shardKeys) => shardKeys.slice(0, 2).map((key) => key.messageId)).sort();
    expect(first.held.map(({ task }) => task.key.messageId).sort()).toEqual(expected);
    expect(outcome).toEqual({
      found: expected.length,
      queued: expected.length,
      moved: expected.length,
      more: perShard.some((shardKeys) => shardKeys.length > 2),
      errors: 0,
    });

    const queued = [...first.held];
    for (let run = 1; run < 40 && queued.length < keys.length; run++) {
      const next = memoryQueue();
      await sweep(now + run * 1000, next, limits);
      expect(next.held.length).toBeGreaterThan(0);
      expect(next.held.length).toBeLessThanOrEqual(SWEEP_SHARDS * limits.pageSize);
      queued.push(...next.held);
    }
    expect(queued.map(({ task }) => task.key.messageId).sort()).toEqual(keys.map((key) => key.messageId));
  });
});

describe('a start of the local stack', () => {
  it('sends the deliveries the last run left pending, without waiting for the sweep interval', async () => {
    // One gateway in this file: a gateway of the sources imports each handler once per file, bound
    // to the tables and the queue it found then (the schedule's own test: webhook-sweep-schedule).
    const { endpoint, credentials } = workerDynamo();
    const tables = await tablesOfItsOwn('sweep-start');
    pointAtLocalDynamo({ endpoint, credentials }, tables);
    const stores = bindTableStores(documentClient(), tables);
    const secret = newWebhookSecret();
    const got = await receiver();
    const tenant = uniqueTenant('sweep-start');
    const hook = storedEndpoint({
      id: 'ep_sweep-start',
      url: got.url,
      events: ['note.created'],
      secrets: { current: secret },
    });
    await stores.webhookEndpoints.create(tenant, hook, { limit: 100 });
    // Kept by the run before, whose queue (in memory) went with it: two hours ago, a minute ago
    // (within the grace a stage gives a task), and one kept before the sweep index, with no time there.
    const keptAt = async (atMs: number) =>
      (
        await fanOutEvent(
          { endpoints: stores.webhookEndpoints, deliveries: stores.webhookDeliveries, now: () => atMs },
          tenant,
          noteEvent(tenant, atMs),
        )
      )[0]!;
    const tasks = [await keptAt(Date.now() - 2 * HOUR), await keptAt(Date.now() - MINUTE)];
    const before = await keptAt(Date.now() - MINUTE);
    await documentClient().send(
      new UpdateCommand({
        TableName: tables.webhookDeliveries,
        Key: { pk: `${tenant}#${before.key.endpointId}`, sk: deliverySortKey(before.key) },
        UpdateExpression: 'REMOVE sweepShard, sweepAt',
      }),
    );
    tasks.push(before);

    const gateway = await bindGateway(0);
    try {
      // As npm start serves: the streams read, so the sweeper runs once at the start.
      await gateway.serve({ authCacheTtlSeconds: 0, webhookStreams: 'read' });
      const pending = async () =>
        (await Promise.all(tasks.map((task) => stores.webhookDeliveries.get(tenant, task.key)))).filter(
          (delivery) => delivery?.status === 'pending',
        ).length;
      for (let waited = 0; (await pending()) > 0; waited += 100) {
        if (waited > 20_000) throw new Error('the start did not send every pending delivery within 20 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await gateway.close();
    }
    expect([...got.ids].sort()).toEqual(tasks.map((task) => task.key.messageId).sort());
    for (const task of tasks)
      expect(await stores.webhookDeliveries.get(tenant, task.key)).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});
