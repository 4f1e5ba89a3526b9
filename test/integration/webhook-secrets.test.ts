/**
 * An endpoint's signing secrets in the store: a rotation changes the secret fields alone, so a
 * disable or a PATCH made between its read and its write is not undone. On the worker's DynamoDB
 * Local, the other write made at exactly that moment by a hook on the rotating store's client.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredWebhookEndpoint } from '#shared/domain/webhooks/webhook-endpoint';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import { documentClientOver } from '#shared/store/dynamo-client';
import { createWebhookEndpointsStore, type WebhookEndpointsStore } from '#shared/store/webhook-endpoints-store';
import { storedEndpoint } from '#test/support/stored-endpoint';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const tenant = uniqueTenant('secrets');
const { endpoint: dynamoEndpoint, credentials, tables } = workerDynamo();
const dynamo = new DynamoDBClient({ endpoint: dynamoEndpoint, region: 'us-east-1', credentials: { ...credentials } });
let plain: WebhookEndpointsStore;

beforeAll(() => {
  plain = createWebhookEndpointsStore(documentClientOver(dynamo), tables.webhookEndpoints);
});
afterAll(() => dynamo.destroy());

async function newEndpoint(): Promise<StoredWebhookEndpoint> {
  const stored = storedEndpoint({ url: 'https://hooks.example.com/cxm', events: ['note.created'] });
  expect(await plain.create(tenant, stored, { limit: 100 })).toEqual({ kind: 'created' });
  return stored;
}

/** A store whose first read of an endpoint is followed, before it answers, by `meanwhile`. */
function storeWithWriteAfterRead(meanwhile: () => Promise<void>): WebhookEndpointsStore {
  const client = documentClientOver(
    new DynamoDBClient({ endpoint: dynamoEndpoint, region: 'us-east-1', credentials: { ...credentials } }),
  );
  let fired = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const answer = await next(args);
      if (!fired && context.commandName === 'GetItemCommand') {
        fired = true;
        await meanwhile();
      }
      return answer;
    },
    { step: 'initialize', name: 'writeAfterRead' },
  );
  return createWebhookEndpointsStore(client, tables.webhookEndpoints);
}

describe('a rotation', () => {
  it('changes the secret fields alone: a disable made between its read and its write stays', async () => {
    const endpoint = await newEndpoint();
    const rotating = storeWithWriteAfterRead(() =>
      plain.disable(tenant, endpoint.id, 'HTTP 410 from the receiver', new Date()),
    );
    const outcome = await rotating.rotateSecret(tenant, endpoint.id, newWebhookSecret(), Date.now(), {});
    expect(outcome.kind).toBe('rotated');
    const stored = await plain.get(tenant, endpoint.id);
    expect(stored).toMatchObject({
      status: 'disabled',
      disabledReason: expect.stringContaining('HTTP 410 from the receiver'),
    });
    expect(stored?.secrets.previous?.secret).toBe(endpoint.secrets.current);
  });

  it('a PATCH made between its read and its write stays', async () => {
    const endpoint = await newEndpoint();
    const rotating = storeWithWriteAfterRead(async () => {
      await plain.update(tenant, endpoint.id, { description: 'patched meanwhile' }, new Date());
    });
    expect((await rotating.rotateSecret(tenant, endpoint.id, newWebhookSecret(), Date.now(), {})).kind).toBe('rotated');
    const stored = await plain.get(tenant, endpoint.id);
    expect(stored?.description).toBe('patched meanwhile');
    expect(stored?.secrets.current).not.toBe(endpoint.secrets.current);
  });
});
