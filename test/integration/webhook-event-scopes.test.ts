/**
 * A webhook endpoint receives only what the key that wrote it may read, over real HTTP: a create,
 * and every PATCH, is refused (403 naming the event and its scope, nothing written) unless the key
 * holds the read scope of each event the endpoint will have; a document event is kept to the
 * collections the key reads, shown in the endpoint, and the fan-out keeps no delivery of another
 * collection's document, nor does an attempt send one its endpoint no longer takes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fillPath, routeById } from '#shared/api/route-table';
import { documentChanged } from '#shared/domain/webhooks/webhook-events';
import { deliverMessage, UNSUBSCRIBED } from '#shared/webhooks/deliver-message';
import { fanOutEvent } from '#shared/webhooks/fan-out-event';
import { storedEndpoint } from '#test/support/stored-endpoint';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

const RECEIVER = 'http://127.0.0.1:9/hooks';
const ENDPOINT_SCOPES = ['webhooks:endpoints.read', 'webhooks:endpoints.write'];

let api: TestApi;
const tenant = uniqueTenant('hook-scopes');
/** A key of the tenant with the endpoint scopes and `scopes`, made once per set. */
const keys = new Map<string, string>();

beforeAll(async () => {
  api = await startTestApi();
});
// Each test starts from a tenant without endpoints, whatever the one before came to.
afterEach(() => removeAll());
afterAll(() => api?.close());

async function keyWith(...scopes: string[]): Promise<string> {
  const name = scopes.join(' ');
  if (!keys.has(name)) keys.set(name, (await api.createKey([tenant], [...ENDPOINT_SCOPES, ...scopes])).key);
  return keys.get(name)!;
}

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  collections?: string[];
  description: string;
  status: string;
  updatedAt: string;
  secret?: string;
}

const endpointsPath = fillPath(routeById('createWebhookEndpoint'), { tenantId: tenant });
const endpointPath = (endpointId: string) =>
  fillPath(routeById('updateWebhookEndpoint'), { tenantId: tenant, endpointId });

const register = async (key: string, events: string[], url = RECEIVER) =>
  api.call('POST', endpointsPath, key, { body: { url, events } });

async function registered(key: string, events: string[]): Promise<Endpoint> {
  const response = await register(key, events);
  expect(response.status, response.text).toBe(201);
  const { secret: _secret, ...endpoint } = response.json as Endpoint;
  return endpoint;
}

const shown = async (endpointId: string) => (await api.call('GET', endpointPath(endpointId), await keyWith())).json;

async function removeAll(): Promise<void> {
  const key = await keyWith();
  const listed = (await api.call('GET', endpointsPath, key)).json as { data: Endpoint[] };
  for (const { id } of listed.data) await api.call('DELETE', endpointPath(id), key);
}

/** An endpoint of document events as one was stored before collections were kept: without them. */
async function keptBeforeCollections(): Promise<string> {
  const id = `ep_before-${Date.now()}`;
  await api.webhookEndpoints.create(
    tenant,
    storedEndpoint({
      id,
      url: RECEIVER,
      events: ['provisioning.document.changed'],
      description: 'kept before collections',
    }),
    { limit: Number.MAX_SAFE_INTEGER },
  );
  return id;
}

const denied = (event: string, scope: string) => ({
  code: 'PermissionDenied',
  message: `The API key does not allow subscribing to '${event}': it needs the scope '${scope}', which reads what the event carries.`,
});

describe('registering', () => {
  it.each([
    ['note.created', 'cxm:conversations.write', ['cxm:conversations.read', 'voc:*'], ['cxm:conversations.write']],
    ['voc.job.completed', 'voc:recordings.read', ['voc:recordings.write', 'cxm:*'], ['voc:recordings.read']],
    ['voc.job.failed', 'voc:recordings.read', ['reporting:voc.read'], ['voc:read']],
    [
      'provisioning.document.changed',
      'provisioning:{collection}.read',
      ['provisioning:bots.write', 'provisioning:write'],
      ['provisioning:bots.read'],
    ],
  ])(
    '%s without %s is 403 naming both, nothing registered (keys of %j); with it 201 (%j)',
    async (event, scope, without, granted) => {
      const refused = await register(await keyWith(...without), [event]);
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual(denied(event, scope));
      expect(((await api.call('GET', endpointsPath, await keyWith())).json as { data: unknown[] }).data).toEqual([]);

      expect((await register(await keyWith(...granted), [event])).status).toBe(201);
    },
  );

  it('one event of several that the key may not read refuses the whole registration', async () => {
    const response = await register(await keyWith('cxm:*'), ['note.created', 'voc.job.failed']);
    expect(response.json).toEqual(denied('voc.job.failed', 'voc:recordings.read'));
    expect(((await api.call('GET', endpointsPath, await keyWith())).json as { data: unknown[] }).data).toEqual([]);
  });

  it('a document event keeps the collections the key reads (read or wildcard, not write), shown and stored; a key of every collection keeps none', async () => {
    const scoped = await registered(
      await keyWith('provisioning:users.read', 'provisioning:bots.*', 'provisioning:jobs.write'),
      ['provisioning.document.changed'],
    );
    expect(scoped.collections).toEqual(['bots', 'users']);
    expect(await shown(scoped.id)).toEqual(scoped);
    expect((await api.webhookEndpoints.get(tenant, scoped.id))?.collections).toEqual(['bots', 'users']);

    for (const every of ['provisioning:read', 'provisioning:*']) {
      const all = await registered(await keyWith(every, 'provisioning:bots.read'), ['provisioning.document.changed']);
      expect(all).not.toHaveProperty('collections');
      expect(await api.webhookEndpoints.get(tenant, all.id)).not.toHaveProperty('collections');
    }
    // No document event, no collections.
    expect(await registered(await keyWith('cxm:*', 'provisioning:bots.read'), ['note.created'])).not.toHaveProperty(
      'collections',
    );
  });
});

describe('changing', () => {
  it('every PATCH is checked against the events the endpoint will have: adding one, or moving or resuming an endpoint of one, the key may not read is 403 and changes nothing', async () => {
    const endpoint = await registered(await keyWith('cxm:*', 'voc:*'), ['note.created', 'voc.job.failed']);
    const notesOnly = await keyWith('cxm:conversations.write');
    for (const body of [
      { events: ['note.created', 'voc.job.failed', 'voc.job.completed'] },
      { url: 'http://localhost:9/elsewhere' },
      { description: 'mine now' },
      { status: 'disabled' },
    ]) {
      const refused = await api.call('PATCH', endpointPath(endpoint.id), notesOnly, { body });
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.json).toEqual(denied('voc.job.failed', 'voc:recordings.read'));
    }
    expect(await shown(endpoint.id)).toEqual(endpoint);

    // The events after the write are what counts: dropping the one it may not read is allowed.
    const dropped = await api.call('PATCH', endpointPath(endpoint.id), notesOnly, {
      body: { events: ['note.created'], url: 'http://localhost:9/elsewhere' },
    });
    expect(dropped.status).toBe(200);
    expect(dropped.json).toMatchObject({ events: ['note.created'], url: 'http://localhost:9/elsewhere' });
  });

  it("the collections become the patching key's: a narrower key narrows them, a key of every collection clears them", async () => {
    const endpoint = await registered(await keyWith('provisioning:read'), ['provisioning.document.changed']);
    const narrowed = await api.call('PATCH', endpointPath(endpoint.id), await keyWith('provisioning:bots.read'), {
      body: { url: 'http://localhost:9/bots-only' },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.json).toMatchObject({ url: 'http://localhost:9/bots-only', collections: ['bots'] });
    expect((await api.webhookEndpoints.get(tenant, endpoint.id))?.collections).toEqual(['bots']);

    const widened = await api.call('PATCH', endpointPath(endpoint.id), await keyWith('provisioning:*'), {
      body: { description: 'every collection' },
    });
    expect(widened.status).toBe(200);
    expect(widened.json).not.toHaveProperty('collections');
  });
});

describe('the fan-out and the attempts', () => {
  it('a document event is kept for the endpoints of its collection only; one of a key of every collection, and one kept before collections, take every one', async () => {
    const scoped = await registered(await keyWith('provisioning:bots.read'), ['provisioning.document.changed']);
    const every = await registered(await keyWith('provisioning:read'), ['provisioning.document.changed']);
    const before = await keptBeforeCollections();
    const deps = { endpoints: api.webhookEndpoints, deliveries: api.webhookDeliveries };
    const receivers = async (collection: string) =>
      (
        await fanOutEvent(
          deps,
          tenant,
          documentChanged(
            tenant,
            { collection: collection, documentId: `d-${collection}`, etag: 'v1', version: 2, change: 'created' },
            new Date(),
          ),
        )
      )
        .map((task) => task.key.endpointId)
        .sort();

    expect(await receivers('bots')).toEqual([scoped.id, every.id, before].sort());
    expect(await receivers('users')).toEqual([every.id, before].sort());
    const listed = await api.call('GET', `${endpointPath(scoped.id)}/deliveries`, await keyWith());
    expect((listed.json as { data: unknown[] }).data).toHaveLength(1);
  });

  it('a pending delivery its endpoint no longer takes (its collections narrowed with its URL) fails without an attempt, saying why', async () => {
    const endpoint = await registered(await keyWith('provisioning:*'), ['provisioning.document.changed']);
    const deps = { endpoints: api.webhookEndpoints, deliveries: api.webhookDeliveries };
    const [task] = await fanOutEvent(
      deps,
      tenant,
      documentChanged(
        tenant,
        { collection: 'users', documentId: 'u-1', etag: 'v1', version: 2, change: 'merged' },
        new Date(),
      ),
    );
    const narrowed = await api.call('PATCH', endpointPath(endpoint.id), await keyWith('provisioning:bots.read'), {
      body: { url: 'http://localhost:9/bots-only' },
    });
    expect(narrowed.status).toBe(200);

    const next = await deliverMessage(
      {
        ...deps,
        // No attempt opens a secret: one that did would fail the test.
        secrets: { open: () => Promise.reject(new Error('an attempt was made')) },
        rules: 'local',
      },
      tenant,
      task!.key,
    );
    expect(next).toEqual({ kind: 'done' });
    expect(await api.webhookDeliveries.get(tenant, task!.key)).toMatchObject({
      status: 'failed',
      attempts: 0,
      lastError: UNSUBSCRIBED,
    });
  });
});
