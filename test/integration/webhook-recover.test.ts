/**
 * A recover's bounds, against DynamoDB Local: over HTTP through the local gateway, one recover per
 * endpoint per interval (429 with `Retry-After` and when to come back, concurrent calls included,
 * a PATCH in between forgetting nothing) and the read limit stated in the answer with `more` and
 * where to go on from; below the handler (the recover itself, with a queue of the test's own), a
 * call cut short by a queue that refuses a group or by its deadline leaves no delivery pending
 * without a task queued, and a call makes at most its limit pending.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPath, routeById } from '#shared/api/route-table';
import {
  MAX_RECOVERED_DELIVERIES,
  RECOVER_INTERVAL_MS,
  RECOVER_LIMITS,
  RECOVER_READ_LIMIT,
} from '#shared/domain/webhooks/recover-limits';
import type { DeliveryKey, DeliveryStatus, DeliveryTask } from '#shared/domain/webhooks/webhook-delivery';
import type { DeliveryQueue } from '#shared/store/delivery-queue';
import type { WebhookDeliveriesStore } from '#shared/store/webhook-deliveries-store';
import { recoverDeliveries } from '#shared/webhooks/recover-deliveries';
import { forgetLastRecover } from '#test/support/forget-last-recover';
import { storedEndpoint } from '#test/support/stored-endpoint';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

const LIMITS = { read: RECOVER_READ_LIMIT, recovered: MAX_RECOVERED_DELIVERIES, intervalSeconds: 60 };

let api: TestApi;
let receiver: Server;
let receiverUrl: string;
let key: string;
const tenant = uniqueTenant('recover');

beforeAll(async () => {
  api = await startTestApi();
  // A PATCH of an endpoint of `voc.job.failed` needs the scope that reads it.
  ({ key } = await api.createKey(
    [tenant],
    ['webhooks:endpoints.read', 'webhooks:endpoints.write', 'voc:recordings.read'],
  ));
  // Whatever a recover sends is taken at its first attempt.
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
});
afterAll(async () => {
  await api?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

let endpoints = 0;

/** A new enabled endpoint of the tenant, put through the store. */
async function addEndpoint(): Promise<string> {
  const id = `ep_recover-${++endpoints}`;
  await api.webhookEndpoints.create(
    tenant,
    storedEndpoint({ id, url: receiverUrl, events: ['voc.job.failed'], description: 'recover' }),
    { limit: Number.MAX_SAFE_INTEGER },
  );
  return id;
}

/**
 * `count` deliveries to the endpoint, a millisecond apart from `startMs`, each of the status
 * `statusOf` gives. Within their 30 days of retention: DynamoDB Local's TTL sweep deletes older ones.
 */
async function addDeliveries(
  endpointId: string,
  count: number,
  statusOf: (index: number) => DeliveryStatus,
  startMs = Date.now() - 60 * 60_000,
): Promise<DeliveryKey[]> {
  const keys = Array.from({ length: count }, (_, index) => ({
    endpointId,
    at: new Date(startMs + index).toISOString(),
    messageId: `msg_${String(index).padStart(5, '0')}`,
  }));
  for (let start = 0; start < count; start += 25) {
    await Promise.all(
      keys.slice(start, start + 25).map((deliveryKey, offset) =>
        api.webhookDeliveries.record(
          tenant,
          {
            ...deliveryKey,
            type: 'voc.job.failed',
            body: JSON.stringify({ tenantId: tenant }),
            status: statusOf(start + offset),
            attempts: 8,
          },
          Date.now(),
        ),
      ),
    );
  }
  return keys;
}

const recoverPath = (endpointId: string) =>
  fillPath(routeById('recoverWebhookDeliveries'), { tenantId: tenant, endpointId });
const recover = (endpointId: string, since = '2026-01-01T00:00:00Z') =>
  api.call('POST', recoverPath(endpointId), key, { body: { since } });

const idOf = (deliveryKey: DeliveryKey) => `${deliveryKey.at}#${deliveryKey.messageId}`;

function keyAt(keys: readonly DeliveryKey[], index: number): DeliveryKey {
  const found = keys[index];
  if (!found) throw new Error(`no delivery ${index} of ${keys.length}`);
  return found;
}

/** 429's answer: `Retry-After` in seconds, and the message saying from when. */
function expectTooSoon(response: Awaited<ReturnType<typeof recover>>, recoveredAtMs: number): void {
  expect(response.status, response.text).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(RECOVER_INTERVAL_MS / 1000);
  const { code, message } = response.json as { code: string; message: string };
  expect(code).toBe('RateLimitExceeded');
  const from = /recover again from (\S+) \(in (\d+) s\)\.$/.exec(message);
  expect(from, message).not.toBeNull();
  expect(Number(from?.[2])).toBe(retryAfter);
  // From the interval's end after the recover that passed (made within this test's own second).
  expect(Math.abs(Date.parse(from?.[1] ?? '') - (recoveredAtMs + RECOVER_INTERVAL_MS))).toBeLessThan(2000);
}

describe('one recover per endpoint per interval', () => {
  it('of concurrent recovers one passes; the others, and the next, are 429 with Retry-After and when to try again', async () => {
    const endpointId = await addEndpoint();
    const startedAt = Date.now();
    const answers = await Promise.all(Array.from({ length: 5 }, () => recover(endpointId)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 429, 429, 429, 429]);
    for (const answer of answers.filter(({ status }) => status === 429)) expectTooSoon(answer, startedAt);
    expectTooSoon(await recover(endpointId), startedAt);
  });

  it('a PATCH or a rotation in between forgets nothing; once the interval has passed, the endpoint is recovered again', async () => {
    const endpointId = await addEndpoint();
    const startedAt = Date.now();
    expect((await recover(endpointId)).status).toBe(202);
    const endpointPath = fillPath(routeById('updateWebhookEndpoint'), { tenantId: tenant, endpointId });
    expect((await api.call('PATCH', endpointPath, key, { body: { description: 'changed' } })).status).toBe(200);
    expect((await api.call('POST', `${endpointPath}/rotate-secret`, key)).status).toBe(200);
    expectTooSoon(await recover(endpointId), startedAt);
    await forgetLastRecover(api.tables.webhookEndpoints, tenant, endpointId);
    expect((await recover(endpointId)).status).toBe(202);
  });

  it('the interval is held to the millisecond, and a disabled or absent endpoint is refused before it counts', async () => {
    const endpointId = await addEndpoint();
    const claim = (nowMs: number) => api.webhookEndpoints.claimRecover(tenant, endpointId, nowMs, RECOVER_INTERVAL_MS);
    const first = Date.now();
    expect(await claim(first)).toEqual({ kind: 'claimed' });
    expect(await claim(first + RECOVER_INTERVAL_MS - 1)).toEqual({ kind: 'too-soon', lastRecoverAt: first });
    expect(await claim(first + RECOVER_INTERVAL_MS)).toEqual({ kind: 'claimed' });
    expect(await api.webhookEndpoints.claimRecover(tenant, 'ep_absent', first, RECOVER_INTERVAL_MS)).toEqual({
      kind: 'not-found',
    });
    await api.webhookEndpoints.disable(tenant, endpointId, 'paused', new Date(first));
    expect(await claim(first + 2 * RECOVER_INTERVAL_MS)).toMatchObject({ kind: 'disabled' });
    expect((await api.webhookEndpoints.get(tenant, endpointId))?.lastRecoverAt).toBe(first + RECOVER_INTERVAL_MS);
  });
});

describe('the limits, stated in the answer', () => {
  it(`a call reads at most ${RECOVER_READ_LIMIT} deliveries, says there is more and from where; the next goes on from there`, async () => {
    const endpointId = await addEndpoint();
    // A long run of delivered ones, then a failed one past the read limit.
    const keys = await addDeliveries(endpointId, RECOVER_READ_LIMIT + 2, (index) =>
      index === RECOVER_READ_LIMIT + 1 ? 'failed' : 'delivered',
    );
    const first = await recover(endpointId);
    expect(first.status, first.text).toBe(202);
    expect(first.json).toEqual({
      recovered: 0,
      read: RECOVER_READ_LIMIT,
      more: true,
      nextSince: keyAt(keys, RECOVER_READ_LIMIT - 1).at,
      limits: LIMITS,
    });
    await forgetLastRecover(api.tables.webhookEndpoints, tenant, endpointId);
    const next = await recover(endpointId, (first.json as { nextSince: string }).nextSince);
    expect(next.json).toEqual({ recovered: 1, read: 3, more: false, nextSince: null, limits: LIMITS });
  });
});

/** A queue that keeps what it is sent, and refuses every send once it has taken `refuseAfter` tasks. */
function recordingQueue(refuseAfter = Number.POSITIVE_INFINITY): DeliveryQueue & { sent: DeliveryTask[] } {
  const sent: DeliveryTask[] = [];
  return {
    sent,
    async send(tasks) {
      if (sent.length + tasks.length > refuseAfter) throw new Error('the queue refused the batch');
      sent.push(...tasks);
    },
  };
}

/** Every delivery of `keys` as it stands now. */
async function statuses(keys: readonly DeliveryKey[]): Promise<Map<string, DeliveryStatus | undefined>> {
  const found = await Promise.all(keys.map((deliveryKey) => api.webhookDeliveries.get(tenant, deliveryKey)));
  return new Map(keys.map((deliveryKey, index) => [idOf(deliveryKey), found[index]?.status]));
}

/** The deliveries of `keys` pending now without a task in `sent`: what nothing would ever send. */
async function pendingWithoutTask(keys: readonly DeliveryKey[], sent: readonly DeliveryTask[]): Promise<string[]> {
  const queued = new Set(sent.map((task) => idOf(task.key)));
  return [...(await statuses(keys))]
    .filter(([id, status]) => status === 'pending' && !queued.has(id))
    .map(([id]) => id);
}

describe('a recover cut short', () => {
  it('by a queue that refuses a group: every delivery made pending has its task, the refused group is failed again', async () => {
    const endpointId = await addEndpoint();
    const keys = await addDeliveries(endpointId, 35, () => 'failed');
    const queue = recordingQueue(20);
    await expect(
      recoverDeliveries({ deliveries: api.webhookDeliveries, queue }, tenant, endpointId, keyAt(keys, 0).at),
    ).rejects.toThrow('the queue refused the batch');
    expect(await pendingWithoutTask(keys, queue.sent)).toEqual([]);
    expect(queue.sent).toHaveLength(20);
    const after = await statuses(keys);
    expect([...after.values()].filter((status) => status === 'pending')).toHaveLength(20);
    // The refused group, failed again with the attempts it had, is for the next recover.
    expect((await api.webhookDeliveries.get(tenant, keyAt(keys, 25)))?.attempts).toBe(8);
  });

  it('by its deadline, in the middle of a group whose write landed: every delivery made pending has its task', async () => {
    const endpointId = await addEndpoint();
    const keys = await addDeliveries(endpointId, 35, () => 'failed');
    const queue = recordingQueue();
    const deadline = new AbortController();
    let reopened = 0;
    // The deadline comes while the 15th write is awaited: the write is made, its answer never read.
    const deliveries: WebhookDeliveriesStore = {
      ...api.webhookDeliveries,
      async reopen(tenantId, deliveryKey, signal) {
        const done = await api.webhookDeliveries.reopen(tenantId, deliveryKey, signal);
        if (++reopened !== 15) return done;
        deadline.abort();
        throw new Error('aborted at the deadline');
      },
    };
    await expect(
      recoverDeliveries({ deliveries, queue }, tenant, endpointId, keyAt(keys, 0).at, deadline.signal),
    ).rejects.toThrow();
    expect(await pendingWithoutTask(keys, queue.sent)).toEqual([]);
    // The first group, and of the second those whose write landed (the 15th among them: the others were cut off, or not).
    expect(queue.sent).toHaveLength(20);
    const pending = [...(await statuses(keys)).values()].filter((status) => status === 'pending');
    expect(pending.length).toBeGreaterThanOrEqual(15);
  });

  it(`a call makes at most ${MAX_RECOVERED_DELIVERIES} pending, queued ${RECOVER_LIMITS.groupSize} at a time, and says where to go on from`, async () => {
    const endpointId = await addEndpoint();
    const keys = await addDeliveries(endpointId, MAX_RECOVERED_DELIVERIES + 1, () => 'failed');
    const sends: number[] = [];
    const queue: DeliveryQueue = {
      async send(tasks) {
        sends.push(tasks.length);
      },
    };
    const outcome = await recoverDeliveries(
      { deliveries: api.webhookDeliveries, queue },
      tenant,
      endpointId,
      keyAt(keys, 0).at,
    );
    expect(outcome).toEqual({
      recovered: MAX_RECOVERED_DELIVERIES,
      read: MAX_RECOVERED_DELIVERIES,
      more: true,
      nextSince: keyAt(keys, MAX_RECOVERED_DELIVERIES - 1).at,
    });
    expect(sends).toEqual(Array(MAX_RECOVERED_DELIVERIES / RECOVER_LIMITS.groupSize).fill(RECOVER_LIMITS.groupSize));
    expect((await api.webhookDeliveries.get(tenant, keyAt(keys, MAX_RECOVERED_DELIVERIES)))?.status).toBe('failed');
  });
});
