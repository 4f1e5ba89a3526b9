/**
 * A function past its deadline, over HTTP: a store call hangs (a fault-proxy rule that never
 * answers) and the chain answers 504 GatewayTimeout itself before the function's timeout
 * (FUNCTION_TIMEOUT_SECONDS, the value CDK deploys; the local gateway gives each invocation the
 * same budget), well-formed, while the gateway goes on serving. When the hung connection finally
 * breaks, the SDK must not retry the write: a commit long after the 504 would surprise a client
 * that checked, found nothing and wrote again. test/unit/shared/http/api-chain.test.ts covers the chain's
 * deadline arithmetic; this waits out the real timeout on purpose (no test-only knob in the runtime).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoundGateway } from '#infra/local/serve-gateway';
import { FUNCTION_TIMEOUT_SECONDS } from '#shared/api/route-spec';
import { callApi, documentPath, noteId, notePath } from '#test/support/call-api';
import { type DynamoFaultProxy, type InjectedFault, startDynamoFaultProxy } from '#test/support/dynamo-fault-proxy';
import { directStores, serveGatewaysOver } from '#test/support/serve-gateway-over';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const tenant = uniqueTenant('deadline');
const TEST_TIMEOUT_MS = (FUNCTION_TIMEOUT_SECONDS + 30) * 1000;
let proxy: DynamoFaultProxy;
let gateway: BoundGateway;
let direct: ReturnType<typeof directStores>;
let key: string;

beforeAll(async () => {
  const { endpoint, credentials, tables } = workerDynamo();
  proxy = await startDynamoFaultProxy(endpoint);
  [gateway] = (await serveGatewaysOver({ endpoint: proxy.url, credentials }, tables, [600])) as [BoundGateway];
  direct = directStores({ endpoint, credentials }, tables);
  ({ key } = await direct.createKey([tenant], ['cxm:conversations.write', 'provisioning:*']));
  for (const id of ['hangs', 'healthy']) {
    await direct.addConversation(tenant, id);
  }
});

afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  direct?.destroy();
});

/**
 * Ends the hang (the held connection drops, as a broken socket does) and gives the SDK ample time
 * to retry, which it must not: the rule still sees only the first attempt.
 */
async function dropAndSettle(hang: InjectedFault): Promise<void> {
  hang.remove();
  // The SDK's first retry would follow within its base delay (tens of ms); wait well past it.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(hang.matched).toBe(1);
}

/**
 * A document write whose store call hangs (the TransactWriteItems that writes the document and its
 * version, and records an Idempotency-Key when there is one): it answers 504 GatewayTimeout, and once
 * the hang breaks, the document is still what it was before. A keyed write recorded nothing, so
 * its retry with the same key runs afresh (no replay of an answer never given).
 */
async function expectTimeoutLeavesDocument(
  method: 'PUT' | 'POST',
  docId: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<void> {
  const before = JSON.stringify({ state: 'before' });
  await direct.documents.replace(tenant, 'users', docId, before);
  const headers: Record<string, string> = idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {};
  const hang = proxy.inject({
    operation: 'TransactWriteItems',
    bodyContains: `"${docId}"`,
    fault: 'NoAnswer',
  });
  const timedOut = await callApi(gateway.url, method, documentPath(tenant, 'users', docId), key, body, headers);
  expect(timedOut.status).toBe(504);
  expect(timedOut.json).toEqual({ code: 'GatewayTimeout', message: expect.any(String) });
  await dropAndSettle(hang);
  expect((await direct.documents.read(tenant, 'users', docId))?.json).toBe(before);
  if (idempotencyKey) {
    const retried = await callApi(gateway.url, method, documentPath(tenant, 'users', docId), key, body, headers);
    expect(retried).toMatchObject({ status: 200, json: body });
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  }
}

// Concurrent: each waits out the function's timeout on its own data (every invocation has its own
// deadline signal), so the file waits once.
describe.concurrent('a handler past its deadline', () => {
  it(
    'a note: 504 GatewayTimeout with the common headers, the gateway serving meanwhile, and no late commit',
    async () => {
      const hang = proxy.inject({
        operation: 'TransactWriteItems',
        bodyContains: `"${tenant}#hangs"`,
        fault: 'NoAnswer',
      });
      const [timedOut, meanwhile] = await Promise.all([
        callApi(gateway.url, 'POST', notePath(tenant, 'hangs'), key, { body: 'stuck in the store' }),
        // Another request while the first one hangs: the gateway is not blocked by it.
        callApi(gateway.url, 'POST', notePath(tenant, 'healthy'), key, { body: 'while the other hangs' }),
      ]);
      expect(timedOut.status).toBe(504);
      expect(timedOut.json).toEqual({ code: 'GatewayTimeout', message: expect.stringMatching(/may have completed/) });
      expect(meanwhile.status).toBe(201);
      await dropAndSettle(hang);
      expect(await direct.conversations.listNotes(tenant, 'hangs')).toEqual([]);

      const after = await callApi(gateway.url, 'POST', notePath(tenant, 'healthy'), key, { body: 'after the timeout' });
      expect(after.status).toBe(201);
      const stored = (await direct.conversations.listNotes(tenant, 'healthy')).map((n) => n.id).sort();
      expect(stored).toEqual([noteId(meanwhile), noteId(after)].sort());
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a merge: 504 GatewayTimeout, and the document stays as it was',
    async () => {
      await expectTimeoutLeavesDocument('PUT', 'slow', { state: 'merged' });
      expect(
        await callApi(gateway.url, 'PUT', documentPath(tenant, 'users', 'slow'), key, { state: 'merged' }),
      ).toMatchObject({ status: 200, json: { state: 'merged' } });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a replace: 504 GatewayTimeout, and the document stays as it was (no retry lands it late)',
    () => expectTimeoutLeavesDocument('POST', 'slow-replace', { state: 'replaced' }),
    TEST_TIMEOUT_MS,
  );

  it(
    'a keyed replace and a keyed merge: 504, the document stays as it was, and the retry with the same key runs afresh',
    () =>
      Promise.all([
        expectTimeoutLeavesDocument('POST', 'slow-keyed-replace', { state: 'replaced' }, `deadline-${tenant}-replace`),
        expectTimeoutLeavesDocument('PUT', 'slow-keyed-merge', { state: 'merged' }, `deadline-${tenant}-merge`),
      ]),
    TEST_TIMEOUT_MS,
  );
});
