/**
 * The webhook sweeper on its schedule in a local gateway that reads the streams (as `npm start`
 * serves), every rule each second here (CXM_SCHEDULE_SECONDS=1) rather than the sweeper's minute:
 * a delivery whose task is lost while the stack runs is sent at a later run. A file of its own: a
 * gateway of the sources imports each handler once per file, bound to the tables and queue it
 * found (webhook-sweep.test.ts starts the other gateway, to see the sweep at a start).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { type BoundGateway, bindGateway } from '#infra/local/serve-gateway';
import { buildNote } from '#shared/domain/notes/build-note';
import { noteCreated } from '#shared/domain/webhooks/webhook-events';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import { documentClient } from '#shared/store/dynamo-client';
import { bindTableStores, type TableStores } from '#shared/store/table-stores';
import { fanOutEvent } from '#shared/webhooks/fan-out-event';
import { storedEndpoint } from '#test/support/stored-endpoint';
import { uniqueTenant } from '#test/support/test-api';
import { tablesOfItsOwn, workerDynamo } from '#test/support/worker-dynamo';

let gateway: BoundGateway;
let receiver: Server;
let receiverUrl: string;
let stores: TableStores;
/** The `webhook-id` of each request the receiver got. */
const ids: string[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      ids.push(String(request.headers['webhook-id']));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  const { endpoint, credentials } = workerDynamo();
  const tables = await tablesOfItsOwn('sweep-schedule');
  pointAtLocalDynamo({ endpoint, credentials }, tables);
  stores = bindTableStores(documentClient(), tables);
  gateway = await bindGateway(0);
  await gateway.serve({ authCacheTtlSeconds: 0, webhookStreams: 'read', scheduleEverySeconds: 1 });
  // The sweep at the start, over an empty table: what follows is the schedule's.
  await gateway.eventsSettled();
});
afterAll(async () => {
  await gateway?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

it('a delivery whose task is lost while the stack runs is sent at a later run of the sweeper', async () => {
  const tenant = uniqueTenant('sweep-schedule');
  const hook = storedEndpoint({
    id: 'ep_sweep-schedule',
    url: receiverUrl,
    events: ['note.created'],
    secrets: { current: newWebhookSecret() },
  });
  await stores.webhookEndpoints.create(tenant, hook, { limit: 100 });
  // Kept two hours ago by its own clock, its task never queued: due for the sweeper an hour ago.
  const twoHoursAgo = Date.now() - 2 * 3_600_000;
  const [task] = await fanOutEvent(
    { endpoints: stores.webhookEndpoints, deliveries: stores.webhookDeliveries, now: () => twoHoursAgo },
    tenant,
    noteCreated(tenant, 'conv-1', buildNote('n-sweep-schedule', new Date(twoHoursAgo))),
  );
  for (let waited = 0; (await stores.webhookDeliveries.get(tenant, task!.key))?.status === 'pending'; waited += 100) {
    if (waited > 20_000) throw new Error('no run of the sweeper sent the pending delivery within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(ids).toEqual([task!.key.messageId]);
  expect(await stores.webhookDeliveries.get(tenant, task!.key)).toMatchObject({ status: 'delivered', attempts: 1 });
});
