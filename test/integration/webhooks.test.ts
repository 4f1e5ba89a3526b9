/**
 * Tenant webhooks end to end through the local stack: an endpoint registered over HTTP, then a note,
 * a document write (one of a collection the registering key may not read is delivered to no one), a
 * document version restored and a recording's job ending, each read from its table's stream by the fan-out,
 * queued, signed and posted to a receiver on this machine that verifies every request with
 * `standardwebhooks` (the specification's reference library). A 500 brings the same `webhook-id`
 * again, a 410 disables the endpoint, a keyed retry of a note makes no second delivery, and the
 * deliveries list says what became of each, and a recover sends a failed one again. The schedule is
 * shortened to two attempts a second apart (CXM_WEBHOOK_RETRY_SCHEDULE_MS).
 *
 * @group sources bundles
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPath, routeById } from '#shared/api/route-table';
import { forgetLastRecover } from '#test/support/forget-last-recover';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

// This file's stage settings: two attempts, a second apart.
process.env.CXM_WEBHOOK_RETRY_SCHEDULE_MS = '0,1000';

interface Receipt {
  id: string;
  body: { type: string; data: Record<string, unknown> };
}

interface Receiver {
  url: string;
  receipts: Receipt[];
  refused: number;
  answers: number[];
}

let api: TestApi;
const servers: Server[] = [];
/** What the gateway reported (a function's fault, a task or stream batch given up): told when a wait fails. */
const faults: string[] = [];
/** Each registered endpoint and its receiver: their state is told when a wait fails. */
const registered: { endpointId: string; got: Receiver }[] = [];
const tenant = uniqueTenant('hooks-e2e');
let key: string;

beforeAll(async () => {
  api = await startTestApi({
    webhookStreams: 'read',
    onFault: (error) => faults.push(error instanceof Error ? error.message : String(error)),
  });
  ({ key } = await api.createKey(
    [tenant],
    [
      'webhooks:endpoints.read',
      'webhooks:endpoints.write',
      'cxm:conversations.write',
      'provisioning:bots.*',
      // Writes users' documents, which its endpoints may not be told of.
      'provisioning:users.write',
    ],
  ));
  await api.addConversation(tenant, { id: 'conv-1' });
});
afterAll(async () => {
  await api?.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver(answers: number[] = []): Promise<Receiver & { verifyWith(secret: string): void }> {
  let verifier: Webhook | undefined;
  const state = { url: '', receipts: [] as Receipt[], refused: 0, answers };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        verifier!.verify(body, request.headers as IncomingHttpHeaders & Record<string, string>);
      } catch {
        state.refused++;
        response.writeHead(400).end();
        return;
      }
      state.receipts.push({ id: String(request.headers['webhook-id']), body: JSON.parse(body) });
      response.writeHead(state.answers.shift() ?? 204).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  return Object.assign(state, {
    verifyWith(secret: string) {
      verifier = new Webhook(secret);
    },
  });
}

async function register(got: Awaited<ReturnType<typeof receiver>>, events: string[]) {
  const response = await api.call('POST', fillPath(routeById('createWebhookEndpoint'), { tenantId: tenant }), key, {
    body: { url: got.url, events },
  });
  expect(response.status).toBe(201);
  const created = response.json as { id: string; secret: string };
  got.verifyWith(created.secret);
  registered.push({ endpointId: created.id, got });
  return created.id;
}

// Generous: on a busy machine each step (a stream read, a queue's second, a Lambda worker's start) takes longer.
async function until(what: string, done: () => boolean | Promise<boolean>, ms = 45_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}; ${await whereThingsStand()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Each endpoint's deliveries as the API lists them, what its receiver got, and the gateway's faults. */
async function whereThingsStand(): Promise<string> {
  const endpoints = await Promise.all(
    registered.map(async ({ endpointId, got }) => ({
      endpointId,
      deliveries: await deliveries(endpointId),
      received: got.receipts.map((receipt) => receipt.id),
      refused: got.refused,
    })),
  );
  return JSON.stringify({ endpoints, faults }, null, 1);
}

const deliveries = async (endpointId: string) =>
  (
    (await api.call('GET', fillPath(routeById('listWebhookDeliveries'), { tenantId: tenant, endpointId }), key))
      .json as { data: { id: string; status: string; attempts: number; type: string }[] }
  ).data;

describe('delivered from the local stack', () => {
  it('a note is delivered once, verified, with the note its 201 answered; a keyed retry of it makes no second delivery', async () => {
    const got = await receiver();
    const endpointId = await register(got, ['note.created']);
    const headers = { 'Idempotency-Key': `${tenant}-note` };
    const first = await api.postNote(tenant, 'conv-1', key, { body: 'Refund issued' }, headers);
    expect(first.status).toBe(201);
    expect((await api.postNote(tenant, 'conv-1', key, { body: 'Refund issued' }, headers)).status).toBe(201);
    await until('the note', () => got.receipts.length >= 1);
    expect(got.refused).toBe(0);
    expect(got.receipts[0]!.body).toEqual({
      type: 'note.created',
      timestamp: (first.json.note as { createdAt: string }).createdAt,
      data: { tenantId: tenant, conversationId: 'conv-1', note: first.json.note },
    });
    await until('the delivery recorded', async () => (await deliveries(endpointId))[0]?.status === 'delivered');
    const [listed] = await deliveries(endpointId);
    expect(listed).toMatchObject({ id: got.receipts[0]!.id, type: 'note.created', attempts: 1 });
    // Time for a second delivery to arrive, if one were made.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(got.receipts).toHaveLength(1);
  });

  it("a 500 brings the same webhook-id again a second later; a document write carries the ETag its answer gave; another collection's, which the key may not read, is not delivered", async () => {
    const got = await receiver([500]);
    const endpointId = await register(got, ['provisioning.document.changed']);
    const unreadable = `/api/v1/provisioning/tenants/${tenant}/users/user-1/versions/current`;
    expect((await api.call('POST', unreadable, key, { body: { name: 'Ada' } })).status).toBe(201);
    const path = `/api/v1/provisioning/tenants/${tenant}/bots/bot-1/versions/current`;
    const written = await api.call('POST', path, key, { body: { name: 'Helper' } });
    expect(written.status).toBe(201);
    await until('the second attempt', () => got.receipts.length >= 2);
    expect(got.receipts[0]!.id).toBe(got.receipts[1]!.id);
    expect(got.receipts[1]!.body.data).toEqual({
      tenantId: tenant,
      collection: 'bots',
      documentId: 'bot-1',
      etag: written.headers.get('etag'),
      version: 1,
      change: 'created',
    });
    await until('the delivery recorded', async () => (await deliveries(endpointId))[0]?.status === 'delivered');
    expect(await deliveries(endpointId)).toMatchObject([{ attempts: 2, status: 'delivered' }]);
    expect(got.receipts.map((receipt) => receipt.body.data.collection)).toEqual(['bots', 'bots']);
  });

  it('a restore is delivered as `restored`, with the number and ETag of the version its answer named', async () => {
    const got = await receiver();
    await register(got, ['provisioning.document.changed']);
    const versions = `/api/v1/provisioning/tenants/${tenant}/bots/bot-restored/versions`;
    expect((await api.call('POST', `${versions}/current`, key, { body: { name: 'Helper' } })).status).toBe(201);
    expect((await api.call('PUT', `${versions}/current`, key, { body: { name: 'Broken' } })).status).toBe(200);
    const restored = await api.call('POST', `${versions}/1/restore`, key);
    expect(restored.status).toBe(200);
    expect(restored.headers.get('content-location')).toMatch(/\/bots\/bot-restored\/versions\/3$/);
    await until('the three writes', () => got.receipts.length >= 3);
    // Each its own delivery: they may arrive in any order.
    const events = got.receipts
      .map((receipt) => receipt.body.data)
      .sort((a, b) => Number(a.version) - Number(b.version));
    expect(events.map((data) => [data.version, data.change])).toEqual([
      [1, 'created'],
      [2, 'merged'],
      [3, 'restored'],
    ]);
    expect(events[2]!.etag).toBe(restored.headers.get('etag'));
  });

  it('a 410 disables the endpoint, saying why', async () => {
    const got = await receiver([410]);
    const endpointId = await register(got, ['note.created']);
    expect((await api.postNote(tenant, 'conv-1', key, { body: 'Called back' })).status).toBe(201);
    const endpointPath = fillPath(routeById('getWebhookEndpoint'), { tenantId: tenant, endpointId });
    await until('the endpoint disabled', async () => {
      return ((await api.call('GET', endpointPath, key)).json as { status: string }).status === 'disabled';
    });
    const endpoint = (await api.call('GET', endpointPath, key)).json as { disabledReason: string };
    expect(endpoint.disabledReason).toMatch(/^the receiver answered 410 Gone/);
  });
});

describe('recover', () => {
  it("sends the endpoint's failed deliveries again, under their same webhook-id, their schedule started over", async () => {
    const got = await receiver([500, 500]);
    const endpointId = await register(got, ['note.created']);
    const before = new Date(Date.now() - 1000).toISOString();
    expect((await api.postNote(tenant, 'conv-1', key, { body: 'Will fail first' })).status).toBe(201);
    await until('the delivery failed', async () => (await deliveries(endpointId))[0]?.status === 'failed');
    expect(got.receipts).toHaveLength(2);

    const recoverPath = fillPath(routeById('recoverWebhookDeliveries'), { tenantId: tenant, endpointId });
    const recovered = await api.call('POST', recoverPath, key, { body: { since: before } });
    expect(recovered.status).toBe(202);
    expect(recovered.json).toMatchObject({ recovered: 1, read: 1, more: false, nextSince: null });
    await until('the delivery sent again', () => got.receipts.length === 3);
    expect(new Set(got.receipts.map((receipt) => receipt.id)).size).toBe(1);
    await until('the delivery recorded', async () => (await deliveries(endpointId))[0]?.status === 'delivered');
    expect((await deliveries(endpointId))[0]).toMatchObject({ attempts: 1, status: 'delivered' });
    // Nothing failed since then: a second recover, once the interval between two has passed, sends nothing.
    await forgetLastRecover(api.tables.webhookEndpoints, tenant, endpointId);
    expect((await api.call('POST', recoverPath, key, { body: { since: before } })).json).toMatchObject({
      recovered: 0,
      more: false,
    });
  });

  it('a disabled endpoint is 409 (enable it first), an unknown one 404, a since not in UTC 400', async () => {
    const got = await receiver();
    const endpointId = await register(got, ['note.created']);
    const endpointPath = fillPath(routeById('getWebhookEndpoint'), { tenantId: tenant, endpointId });
    expect((await api.call('PATCH', endpointPath, key, { body: { status: 'disabled' } })).status).toBe(200);
    const recoverPath = fillPath(routeById('recoverWebhookDeliveries'), { tenantId: tenant, endpointId });
    const refused = await api.call('POST', recoverPath, key, { body: { since: '2026-01-01T00:00:00Z' } });
    expect(refused.status).toBe(409);
    expect((refused.json as { message: string }).message).toContain('enable it (PATCH with "status": "enabled")');
    const absent = fillPath(routeById('recoverWebhookDeliveries'), { tenantId: tenant, endpointId: 'ep_absent' });
    expect((await api.call('POST', absent, key, { body: { since: '2026-01-01T00:00:00Z' } })).status).toBe(404);
    expect((await api.call('POST', recoverPath, key, { body: { since: '2026-01-01T00:00:00+01:00' } })).status).toBe(
      400,
    );
  });
});
