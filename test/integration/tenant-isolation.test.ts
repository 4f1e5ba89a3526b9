/**
 * Tenant isolation (shared/README.md: every store method takes the tenant first, every key starts
 * with it): two tenants hold the very same ids (the conversation, the documents of one collection,
 * the bot, the reporting rows of both lists, the VOC job) and every route is exercised on them.
 * Nothing one tenant's key does reads or changes the other's data: lists included (provisioning,
 * MCP list_bots, both reporting lists on the DynamoDB index), and a key used on the other tenant's
 * path is 403 and changes nothing. Each tenant's data carries its tenant id, so any leak shows as
 * the other id in a response.
 *
 * @group sources bundles
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_DENIED_MESSAGE } from '#shared/api/api-error';
import type { RouteSpec } from '#shared/api/route-spec';
import { fillPath, routes, scopeAreas } from '#shared/api/route-table';
import {
  arrangeAll,
  FIXTURE_COLLECTION,
  FIXTURE_CONVERSATION,
  FIXTURE_ENDPOINT,
  fixtureCall,
  fixtureOf,
  routeMethodPairs,
} from '#test/support/route-fixtures';
import { tenantItemKeys } from '#test/support/tenant-items';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenantA = uniqueTenant('iso-a');
const tenantB = uniqueTenant('iso-b');
const everyArea = scopeAreas().map((area) => `${area}:*`);
let keyA: string;
let keyB: string;
let keyBoth: string;

beforeAll(async () => {
  api = await startTestApi();
  keyA = (await api.createKey([tenantA], everyArea)).key;
  keyB = (await api.createKey([tenantB], everyArea)).key;
  keyBoth = (await api.createKey([tenantA, tenantB], everyArea)).key;
  await arrangeAll(api, tenantA);
  await arrangeAll(api, tenantB);
});
afterAll(() => api.close());

const allRoutes: readonly RouteSpec[] = routes;
const writeRoutes = allRoutes.filter((route) => fixtureOf(route).wrote);
/** Routes that only read, each with the request that reads (MCP's is a list_bots call). */
const readRoutes = allRoutes.filter((route) => !fixtureOf(route).wrote);

async function callRoute(route: RouteSpec, tenantId: string, key: string, caseId: string) {
  const call = await fixtureCall(api, route, tenantId, route.method, caseId);
  return api.call(call.method, call.path, key, { body: call.body, headers: call.headers });
}

/**
 * Everything of `tenantId` a client or the store can see: every read route's answer, the notes
 * of the shared conversation (no route reads them back), and the keys of all its items.
 */
async function snapshot(tenantId: string, key: string) {
  const reads: Record<string, { status: number; text: string }> = {};
  for (const route of readRoutes) {
    const { status, text } = await callRoute(route, tenantId, key, 'snapshot');
    reads[route.id] = { status, text };
  }
  const notes = (await api.conversations.listNotes(tenantId, FIXTURE_CONVERSATION)).map(({ id, body }) => ({
    id,
    body,
  }));
  const conversation = await api.conversations.getConversation(tenantId, FIXTURE_CONVERSATION);
  const items = [
    ...(await tenantItemKeys(api.tables.conversations, tenantId)),
    ...(await tenantItemKeys(api.tables.documents, tenantId)),
    ...(await tenantItemKeys(api.tables.vocJobs, tenantId)),
    ...(await tenantItemKeys(api.tables.webhookEndpoints, tenantId)),
    ...(await tenantItemKeys(api.tables.webhookDeliveries, tenantId)),
  ];
  return { reads, notes, conversation, items };
}

/** The answer holds the marks of `own` (its id, or what the fixture says marks it), none of `other`'s. */
async function expectOwn(route: RouteSpec, text: string, own: string, other: string): Promise<void> {
  const markOf = async (tenantId: string) => (await fixtureOf(route).marker?.(api, tenantId)) ?? tenantId;
  expect(text, route.id).toContain(await markOf(own));
  expect(text, route.id).not.toContain(await markOf(other));
  expect(text, route.id).not.toContain(other);
}

describe('reads', () => {
  it.each([
    ['A', () => tenantA, () => tenantB, () => keyA],
    ['B', () => tenantB, () => tenantA, () => keyB],
  ])(
    "every read route with tenant %s's key shows its own data under the shared ids, never the other's",
    async (_name, own, other, key) => {
      for (const route of readRoutes) {
        const response = await callRoute(route, own(), key(), 'read');
        expect(response.status, route.id).toBe(fixtureOf(route).permitted[route.method]!.status);
        await expectOwn(route, response.text, own(), other());
      }
    },
  );

  it('a key holding both tenants reads each from its own path only: the tenant comes from the path, not the key', async () => {
    for (const [own, other] of [
      [tenantA, tenantB],
      [tenantB, tenantA],
    ] as const) {
      for (const route of readRoutes) {
        const response = await callRoute(route, own, keyBoth, 'both');
        expect(response.status, route.id).toBe(fixtureOf(route).permitted[route.method]!.status);
        await expectOwn(route, response.text, own, other);
      }
    }
  });
});

describe('writes', () => {
  it("every write with A's key lands in A alone: B's data and lists stay exactly as they were, and A's new data is invisible to B", async () => {
    const before = await snapshot(tenantB, keyB);
    for (const route of writeRoutes) {
      const caseId = `write-${route.id}`;
      const response = await callRoute(route, tenantA, keyA, caseId);
      expect(response.status, route.id).toBe(fixtureOf(route).permitted[route.method]!.status);
      expect(await fixtureOf(route).wrote!(api, tenantA, caseId), route.id).toBe(true);
      expect(await fixtureOf(route).wrote!(api, tenantB, caseId), route.id).toBe(false);
    }
    const after = await snapshot(tenantB, keyB);
    expect(after).toEqual(before);
    // The recover's delivery is attempted behind the answer: settled before the next test's snapshots.
    for (let waited = 0; ; waited += 100) {
      const { deliveries } = await api.webhookDeliveries.list(tenantA, FIXTURE_ENDPOINT, { limit: 100 });
      if (deliveries.every((delivery) => delivery.status !== 'pending')) break;
      if (waited > 15_000) throw new Error(`${tenantA}'s recovered delivery is still pending after 15 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const { text } of Object.values(after.reads)) expect(text).not.toContain(tenantA);
    // The document A just created, asked for by the same id on B's path.
    const getDocument = allRoutes.find((route) => route.id === 'getCurrentDocument')!;
    const sameId = fillPath(getDocument, {
      tenantId: tenantB,
      collection: FIXTURE_COLLECTION,
      docId: `new-write-replaceCurrentDocument`,
    });
    expect((await api.call('GET', sameId, keyB)).status).toBe(404);
  });

  it("A's key on B's path is 403 on every route and method, and changes nothing in either tenant", async () => {
    // Each call's own data (a DELETE's endpoint) is arranged before the snapshots.
    const cases = [];
    for (const { route, method } of routeMethodPairs()) {
      const caseId = `cross-${route.id}-${method}`;
      cases.push({ route, method, caseId, call: await fixtureCall(api, route, tenantB, method, caseId) });
    }
    const beforeB = await snapshot(tenantB, keyB);
    const beforeA = await snapshot(tenantA, keyA);
    for (const { route, method, caseId, call } of cases) {
      const response = await api.call(call.method, call.path, keyA, { body: call.body, headers: call.headers });
      expect(response.status, `${method} ${route.id}`).toBe(403);
      expect(response.json, `${method} ${route.id}`).toEqual({
        code: 'PermissionDenied',
        message: PERMISSION_DENIED_MESSAGE,
      });
      if (fixtureOf(route).wrote) {
        expect(await fixtureOf(route).wrote!(api, tenantB, caseId)).toBe(false);
        expect(await fixtureOf(route).wrote!(api, tenantA, caseId)).toBe(false);
      }
    }
    expect(await snapshot(tenantB, keyB)).toEqual(beforeB);
    expect(await snapshot(tenantA, keyA)).toEqual(beforeA);
  });
});
