/**
 * A tenant's webhook endpoints over real HTTP: registered with a secret shown once (a keyed retry
 * shows the same one and registers nothing), listed and read without it, changed, paused and
 * resumed, rotated (a keyed retry does not rotate twice), deleted (204, then 404), and held to the
 * stage's limit per tenant (here 3). URLs a delivery may not reach are refused at registration and
 * at a change, naming why, and nothing is written. An endpoint's deliveries list newest first, a
 * page at a time.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPath, routeById } from '#shared/api/route-table';
import type { SigningSecrets } from '#shared/domain/webhooks/signing-secrets';
import { webhookKey } from '#shared/domain/webhooks/webhook-secret';
import { webhookSecretBox } from '#shared/secrets/webhook-secret-box';
import { documentClient } from '#shared/store/dynamo-client';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

// This file's stage setting (the functions read it from their environment, as deployed ones do).
process.env.CXM_WEBHOOK_MAX_ENDPOINTS = '3';

const RECEIVER = 'http://127.0.0.1:9/hooks';
const DAY_MS = 24 * 60 * 60 * 1000;
/** The test gateway's key (test-env.ts), which the functions seal with. */
const box = webhookSecretBox();

let api: TestApi;
let key: string;
const tenant = uniqueTenant('hooks');

beforeAll(async () => {
  api = await startTestApi();
  // With the read scopes of every event it subscribes to (webhook-event-scopes.test.ts tests keys without them).
  ({ key } = await api.createKey(
    [tenant],
    ['webhooks:endpoints.read', 'webhooks:endpoints.write', 'cxm:conversations.write', 'voc:read', 'provisioning:read'],
  ));
});
afterAll(() => api?.close());

const endpointsPath = (tenantId = tenant) => fillPath(routeById('createWebhookEndpoint'), { tenantId });
const endpointPath = (endpointId: string) =>
  fillPath(routeById('getWebhookEndpoint'), { tenantId: tenant, endpointId });

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string;
  status: string;
  disabledReason?: string;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

async function register(body: unknown, headers: Record<string, string> = {}) {
  return api.call('POST', endpointsPath(), key, { body, headers });
}

async function listed(): Promise<Endpoint[]> {
  const response = await api.call('GET', endpointsPath(), key);
  expect(response.status).toBe(200);
  return (response.json as { data: Endpoint[] }).data;
}

/** Everything the endpoints table holds for this tenant, as text. */
async function endpointsText(): Promise<string> {
  const { Items = [] } = await documentClient().send(new ScanCommand({ TableName: api.tables.webhookEndpoints }));
  return JSON.stringify(Items.filter((item) => String(item.pk).startsWith(`${tenant}#`)));
}

/** An endpoint's stored secrets, opened with the stage's key. */
async function opened(endpointId: string, secrets: SigningSecrets): Promise<SigningSecrets> {
  const context = { tenantId: tenant, endpointId };
  return {
    current: await box.open(secrets.current, context),
    ...(secrets.previous && {
      previous: { secret: await box.open(secrets.previous.secret, context), until: secrets.previous.until },
    }),
  };
}

/** Everything the idempotency ledger holds for this tenant, as text. */
async function ledgerText(): Promise<string> {
  const { Items = [] } = await documentClient().send(new ScanCommand({ TableName: api.tables.idempotency }));
  return JSON.stringify(Items.filter((item) => String(item.pk).startsWith(`${tenant}#`)));
}

async function removeAll(): Promise<void> {
  for (const endpoint of await listed())
    expect((await api.call('DELETE', endpointPath(endpoint.id), key)).status).toBe(204);
}

describe('registering', () => {
  it('answers the endpoint with a Standard Webhooks secret, shown this once: the list and the read show no secret', async () => {
    const response = await register({ url: RECEIVER, events: ['note.created', 'voc.job.failed'], description: 'ops' });
    expect(response.status).toBe(201);
    const created = response.json as Endpoint;
    expect(created).toMatchObject({
      url: RECEIVER,
      events: ['note.created', 'voc.job.failed'],
      description: 'ops',
      status: 'enabled',
    });
    expect(created.id).toMatch(/^ep_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(webhookKey(created.secret!)).toHaveLength(32);
    expect(created.createdAt).toBe(created.updatedAt);

    const { secret: _secret, ...shown } = created;
    expect(await listed()).toContainEqual(shown);
    const read = await api.call('GET', endpointPath(created.id), key);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(shown);
    expect(read.text).not.toContain(created.secret!);
    await removeAll();
  });

  it('a description left out is empty', async () => {
    const created = (await register({ url: RECEIVER, events: ['note.created'] })).json as Endpoint;
    expect(created.description).toBe('');
    await removeAll();
  });

  it('a keyed retry answers the same endpoint, its secret withheld (kept in no ledger), and registers nothing more; another body under the key is 422', async () => {
    const headers = { 'Idempotency-Key': `${tenant}-register` };
    const body = { url: RECEIVER, events: ['note.created'] };
    const first = await register(body, headers);
    const again = await register(body, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    const { secret, ...endpoint } = first.json as Endpoint;
    expect(again.json).toEqual({
      ...endpoint,
      secretWithheld: `The signing secret is shown in the first answer to this request only and is not kept to be shown again: if it was lost, POST ${endpointPath(endpoint.id)}/rotate-secret for a new one.`,
    });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    // The record is there, the answer in it, the secret not.
    expect(await ledgerText()).toContain(endpoint.id);
    expect(await ledgerText()).not.toContain(secret!);
    expect(await listed()).toHaveLength(1);
    expect((await register({ ...body, description: 'other' }, headers)).status).toBe(422);
    await removeAll();
  });

  it.each([
    ['https://10.0.0.7/hooks', '10.0.0.7 is not a public address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is not a public address'],
    ['https://[fd00:ec2::254]/', '[fd00:ec2::254] is not a public address'],
    ['https://2852039166/', '169.254.169.254 is not a public address'],
    [
      'http://hooks.example.com/cxm',
      'a webhook URL is https, or http to 127.0.0.1, localhost or [::1] on a local stage',
    ],
    ['http://10.0.0.7/cxm', 'a webhook URL is https'],
    ['ftp://127.0.0.1/cxm', 'a webhook URL is https'],
    ['https://user:pass@hooks.example.com/', 'carries no credentials'],
    ['https://intranet/', 'intranet is not a public host name'],
    ['https://printer.localhost/', 'printer.localhost is not a public host name'],
    ['not a url', 'an absolute URL'],
  ])('%s is refused (400 naming why) and nothing is registered', async (url, reason) => {
    const response = await register({ url, events: ['note.created'] });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'BadRequest' });
    expect((response.json as { message: string }).message).toContain("Field 'url' cannot receive webhooks");
    expect((response.json as { message: string }).message).toContain(reason);
    expect(await listed()).toEqual([]);
  });

  it.each([
    [{ url: RECEIVER }, 'events'],
    [{ url: RECEIVER, events: [] }, 'events'],
    [{ url: RECEIVER, events: ['note.deleted'] }, 'events'],
    [{ url: RECEIVER, events: ['note.created', 'note.created'] }, 'events'],
    [{ url: RECEIVER, events: ['note.created'], secret: 'whsec_mine' }, 'secret'],
    [{ url: RECEIVER, events: ['note.created'], description: 'a\u0000b' }, 'description'],
    [{ url: `${RECEIVER}/${'a'.repeat(2048)}`, events: ['note.created'] }, 'url'],
  ])('a body %j is 400 naming %s', async (body, member) => {
    const response = await register(body);
    expect(response.status).toBe(400);
    expect((response.json as { message: string }).message).toContain(member);
  });

  it("holds the stage's limit per tenant: past it 409 and nothing written; a deletion frees a place; other tenants are not counted", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await register({ url: RECEIVER, events: ['note.created'], description: `n${i}` });
      expect(response.status).toBe(201);
      ids.push((response.json as Endpoint).id);
    }
    const refused = await register({ url: RECEIVER, events: ['note.created'], description: 'fourth' });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({
      code: 'Conflict',
      message:
        'This tenant has 3 webhook endpoints, the most it may: delete one it no longer uses (or send more event types to one) first.',
    });
    expect(await listed()).toHaveLength(3);

    const other = uniqueTenant('hooks-other');
    const otherKey = (await api.createKey([other], ['webhooks:endpoints.write', 'cxm:conversations.write'])).key;
    const elsewhere = await api.call('POST', endpointsPath(other), otherKey, {
      body: { url: RECEIVER, events: ['note.created'] },
    });
    expect(elsewhere.status).toBe(201);

    expect((await api.call('DELETE', endpointPath(ids[0]!), key)).status).toBe(204);
    expect((await register({ url: RECEIVER, events: ['note.created'], description: 'again' })).status).toBe(201);
    await removeAll();
  });

  it('a burst past the limit registers exactly the limit', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => register({ url: RECEIVER, events: ['note.created'], description: `b${i}` })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(5);
    expect(await listed()).toHaveLength(3);
    await removeAll();
  });
});

describe('changing, pausing, deleting', () => {
  it('PATCH changes only the fields it names; disabled says why, enabled clears it', async () => {
    const created = (await register({ url: RECEIVER, events: ['note.created'], description: 'before' }))
      .json as Endpoint;
    const changed = await api.call('PATCH', endpointPath(created.id), key, {
      body: { events: ['provisioning.document.changed'], url: 'http://localhost:9/other' },
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      id: created.id,
      url: 'http://localhost:9/other',
      events: ['provisioning.document.changed'],
      description: 'before',
      status: 'enabled',
      createdAt: created.createdAt,
    });
    expect((changed.json as Endpoint).updatedAt >= created.updatedAt).toBe(true);

    const paused = (await api.call('PATCH', endpointPath(created.id), key, { body: { status: 'disabled' } }))
      .json as Endpoint;
    expect(paused.status).toBe('disabled');
    expect(paused.disabledReason).toMatch(/^disabled by a PATCH at \d{4}-/);
    expect((await api.call('GET', endpointPath(created.id), key)).json).toEqual(paused);

    const resumed = (await api.call('PATCH', endpointPath(created.id), key, { body: { status: 'enabled' } }))
      .json as Endpoint;
    expect(resumed.status).toBe('enabled');
    expect(resumed.disabledReason).toBeUndefined();
    await removeAll();
  });

  it('a refused URL, an empty or unknown change is 400 and changes nothing; an unknown endpoint is 404', async () => {
    const created = (await register({ url: RECEIVER, events: ['note.created'] })).json as Endpoint;
    const { secret: _secret, ...before } = created;
    for (const [body, named] of [
      [{ url: 'https://192.168.1.1/' }, '192.168.1.1 is not a public address'],
      [{}, 'must NOT have fewer than 1 properties'],
      [{ secret: 'whsec_x' }, 'secret'],
      [{ status: 'paused' }, 'status'],
    ] as const) {
      const response = await api.call('PATCH', endpointPath(created.id), key, { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((response.json as { message: string }).message).toContain(named);
    }
    expect((await api.call('GET', endpointPath(created.id), key)).json).toEqual(before);
    const absent = await api.call('PATCH', endpointPath('ep_absent'), key, { body: { description: 'x' } });
    expect(absent.status).toBe(404);
    expect(absent.json).toEqual({
      code: 'NotFound',
      message: "No webhook endpoint 'ep_absent' exists in this tenant.",
    });
    await removeAll();
  });

  it('DELETE is 204 without a body or Content-Type; then the endpoint is 404 to every operation', async () => {
    const created = (await register({ url: RECEIVER, events: ['note.created'] })).json as Endpoint;
    const deleted = await api.call('DELETE', endpointPath(created.id), key);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(deleted.headers.get('content-type')).toBeNull();
    expect(deleted.headers.get('x-request-id')).toBeTruthy();
    expect((await api.call('GET', endpointPath(created.id), key)).status).toBe(404);
    expect((await api.call('DELETE', endpointPath(created.id), key)).status).toBe(404);
    expect((await api.call('POST', `${endpointPath(created.id)}/rotate-secret`, key)).status).toBe(404);
    expect(await listed()).toEqual([]);
  });
});

describe('rotating the secret', () => {
  it('answers a new secret and when the replaced one stops signing (24 hours); a keyed retry answers the same one without rotating again', async () => {
    const created = (await register({ url: RECEIVER, events: ['note.created'] })).json as Endpoint;
    const rotatePath = `${endpointPath(created.id)}/rotate-secret`;
    const before = Date.now();
    const rotated = await api.call('POST', rotatePath, key, { headers: { 'Idempotency-Key': `${tenant}-rotate` } });
    expect(rotated.status).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.json as { secret: string; previousSecretExpiresAt: string };
    expect(secret).not.toBe(created.secret);
    expect(webhookKey(secret)).toHaveLength(32);
    const expires = Date.parse(previousSecretExpiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + DAY_MS - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + DAY_MS);

    const replayed = await api.call('POST', rotatePath, key, { headers: { 'Idempotency-Key': `${tenant}-rotate` } });
    expect(replayed.json).toEqual({
      previousSecretExpiresAt,
      secretWithheld: `The signing secret is shown in the first answer to this request only and is not kept to be shown again: if it was lost, POST ${rotatePath} for a new one.`,
    });
    expect(replayed.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await ledgerText()).toContain(previousSecretExpiresAt);
    expect(await ledgerText()).not.toContain(secret);
    // Sealed at rest, each opening to the secret its answer showed.
    const stored = await api.webhookEndpoints.get(tenant, created.id);
    expect(await opened(created.id, stored!.secrets)).toEqual({
      current: secret,
      previous: { secret: created.secret, until: expires },
    });
    expect(await endpointsText()).not.toContain(secret);
    expect(await endpointsText()).not.toContain(created.secret!);

    // A second rotation within the 24 hours: the first secret no longer signs.
    const second = (await api.call('POST', rotatePath, key)).json as { secret: string };
    const after = await api.webhookEndpoints.get(tenant, created.id);
    expect(await opened(created.id, after!.secrets)).toMatchObject({ current: second.secret, previous: { secret } });
    await removeAll();
  });
});

describe('the deliveries list', () => {
  it("pages an endpoint's deliveries newest first, without their bodies; the last page's cursor is null", async () => {
    const created = (await register({ url: RECEIVER, events: ['note.created'] })).json as Endpoint;
    const other = (await register({ url: RECEIVER, events: ['note.created'] })).json as Endpoint;
    const base = Date.parse('2026-11-27T08:00:00.000Z');
    for (let i = 0; i < 5; i++) {
      await api.webhookDeliveries.record(
        tenant,
        {
          endpointId: created.id,
          at: new Date(base + i * 1000).toISOString(),
          messageId: `msg_list-${i}`,
          type: 'note.created',
          body: '{"secret":"not shown"}',
          status: i === 4 ? 'pending' : 'delivered',
          attempts: 1,
          ...(i === 4 && {
            lastStatus: 503,
            lastError: 'HTTP 503',
            nextAttemptAt: new Date(base + 9000).toISOString(),
          }),
        },
        Date.now(),
      );
    }
    await api.webhookDeliveries.record(
      tenant,
      {
        endpointId: other.id,
        at: new Date(base).toISOString(),
        messageId: 'msg_other',
        type: 'note.created',
        body: '{}',
        status: 'pending',
        attempts: 0,
      },
      Date.now(),
    );
    const deliveriesPath = `${endpointPath(created.id)}/deliveries`;
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await api.call('GET', `${deliveriesPath}${query}`, key);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('not shown');
      const body = page.json as { data: { id: string }[]; cursor: string | null };
      seen.push(...body.data.map((delivery) => delivery.id));
      cursor = body.cursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(['msg_list-4', 'msg_list-3', 'msg_list-2', 'msg_list-1', 'msg_list-0']);

    const first = (await api.call('GET', `${deliveriesPath}?limit=1`, key)).json as { data: unknown[] };
    expect(first.data).toEqual([
      {
        id: 'msg_list-4',
        type: 'note.created',
        eventAt: '2026-11-27T08:00:04.000Z',
        status: 'pending',
        attempts: 1,
        lastStatus: 503,
        lastError: 'HTTP 503',
        nextAttemptAt: '2026-11-27T08:00:09.000Z',
      },
    ]);
    await removeAll();
  });

  it('a cursor not of this list is 400; an endpoint that does not exist, or no longer, is 404', async () => {
    const created = (await register({ url: RECEIVER, events: ['note.created'] })).json as Endpoint;
    const deliveriesPath = `${endpointPath(created.id)}/deliveries`;
    const forged = Buffer.from(JSON.stringify({ v: 2, before: 'x' })).toString('base64url');
    for (const cursor of [forged, 'bm90LWpzb24']) {
      const response = await api.call('GET', `${deliveriesPath}?cursor=${cursor}`, key);
      expect(response.status).toBe(400);
      expect((response.json as { message: string }).message).toContain("'cursor'");
    }
    for (const limit of ['0', '101', 'ten'])
      expect((await api.call('GET', `${deliveriesPath}?limit=${limit}`, key)).status).toBe(400);
    await removeAll();
    expect((await api.call('GET', deliveriesPath, key)).status).toBe(404);
    expect((await api.call('GET', `${endpointPath('ep_absent')}/deliveries`, key)).json).toEqual({
      code: 'NotFound',
      message: "No webhook endpoint 'ep_absent' exists in this tenant.",
    });
  });
});
