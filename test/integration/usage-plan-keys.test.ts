/**
 * Rate limits per tenant on a deployed stage (issue 14): `cxm keys create --stage` gives each
 * tenant one API Gateway key in the stage's usage plan, shared by all of its keys; the authorizer
 * names the path tenant's key as `usageIdentifierKey`; `revoke` deletes a tenant's key with its
 * last active key; `sync` makes the plan match the keys table. The CLI runs as an operator runs it,
 * against DynamoDB Local tables named as the stage's (`cxm-<stage>-*`) and a fake API Gateway
 * control plane reached through the SDK's own endpoint variable.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { issueKey } from '#shared/auth/issue-key';
import { tenantUsageKeyName, tenantUsageKeyValue } from '#shared/auth/usage-identity';
import { documentClient } from '#shared/store/dynamo-client';
import { createKeysStore, type KeysStore } from '#shared/store/keys-store';
import { routes } from '#shared/routes';
import { buildAuthorizerEvent } from '#infra/local/build-proxy-event';
import { createTables } from '#infra/local/dynamodb-local';
import { useLocalDynamo } from '#infra/local/use-local-dynamo';
import { startFakeApiGateway, type FakeApiGateway, type FakeApiKey } from '#test/support/fake-api-gateway';
import { run } from '#test/support/run-process';
import { uniqueTenant } from '#test/support/test-api';

const STAGE = 'rltest';
const PLAN = 'plan-rl';
let fake: FakeApiGateway;
let keys: KeysStore;
let authorize: (token: string, pathTenant: string) => Promise<APIGatewayAuthorizerResult>;
let env: Record<string, string>;
const stageBefore = process.env.CXM_STAGE;

const cxm = (...args: string[]) => run('node', ['infra/cli/cxm.mjs', ...args], env);

async function create(...tenants: string[]): Promise<{ id: string; key: string; stdout: string }> {
  const created = await cxm('keys', 'create', '--stage', STAGE, ...tenants.flatMap((tenant) => ['--tenant', tenant]), '--scope', 'cxm:*');
  expect(created.stderr).toBe('');
  expect(created.code).toBe(0);
  const id = /Created key (\w+)/.exec(created.stdout)![1]!;
  const key = /Key: +(\S+)/.exec(created.stdout)![1]!;
  return { id, key, stdout: created.stdout };
}

/** The fake's keys named as the tenant's usage key. */
const tenantKeys = (tenant: string) => [...fake.apiKeys].filter(([, key]) => key.name === tenantUsageKeyName(STAGE, tenant));
/** The tenant's one usage key, as [id, key]. */
function onlyTenantKey(tenant: string): [string, FakeApiKey] {
  const found = tenantKeys(tenant);
  expect(found).toHaveLength(1);
  return found[0]!;
}
const writes = (from: number) => fake.calls.slice(from).filter((call) => !call.startsWith('GET '));

beforeAll(async () => {
  const { endpoint } = inject('dynamo');
  fake = await startFakeApiGateway(
    [
      { id: 'plan-other', name: 'cxm-other' },
      { id: PLAN, name: `cxm-${STAGE}` },
    ],
    // Small pages: every listing the CLI makes must follow `position`.
    { pageSize: 2 },
  );
  const tables = await createTables(endpoint, STAGE);
  env = {
    AWS_ENDPOINT_URL_API_GATEWAY: fake.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    // No local stack: the CLI must use the stage, not $CXM_HOME.
    CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-rl-')),
  };
  useLocalDynamo(endpoint, tables as Parameters<typeof useLocalDynamo>[1]);
  keys = createKeysStore(documentClient(), tables.keys!);
  // The stage's authorizer: its function has CXM_STAGE set by the stack.
  process.env.CXM_STAGE = STAGE;
  const { handler } = await import('#functions/authorizer');
  const route = routes.find((candidate) => candidate.id === 'listDocuments')!;
  // The event API Gateway sends, as the local gateway builds it.
  authorize = (token, pathTenant) =>
    handler(
      buildAuthorizerEvent(
        {
          method: route.method,
          rawPath: `/api/v1/provisioning/tenants/${pathTenant}/bots`,
          rawQuery: '',
          rawHeaders: ['Authorization', `Bearer ${token}`],
          body: Buffer.alloc(0),
          sourceIp: '127.0.0.1',
          host: 'localhost',
          requestId: 'r1',
          now: new Date(),
        },
        route,
        { tenantId: pathTenant, collection: 'bots' },
      ),
    );
});
afterAll(async () => {
  if (stageBefore === undefined) delete process.env.CXM_STAGE;
  else process.env.CXM_STAGE = stageBefore;
  await fake.close();
});

describe('cxm keys create --stage: one usage-plan key per tenant', () => {
  it("creates the tenant's API Gateway key with its derived value in the stage plan; the authorizer names it", async () => {
    const tenant = uniqueTenant('rl');
    const { id, key, stdout } = await create(tenant);
    const [[usageId, apiKey] = []] = tenantKeys(tenant);
    expect(apiKey).toMatchObject({ value: tenantUsageKeyValue(STAGE, tenant), enabled: true, usagePlanId: PLAN, tags: { project: 'cxm-api', stage: STAGE, tenant } });
    expect(stdout).toContain(`Usage plan: tenant ${tenant} is throttled through API Gateway key ${usageId} in plan cxm-${STAGE}, shared by its keys`);

    const result = await authorize(key, tenant);
    expect(result.principalId).toBe(id);
    expect(result.usageIdentifierKey).toBe(apiKey!.value);
  });

  it("a tenant's second key shares its usage key: nothing new in API Gateway, the same usageIdentifierKey", async () => {
    const tenant = uniqueTenant('rl');
    const first = await create(tenant);
    const before = fake.calls.length;
    const second = await create(tenant);
    expect(writes(before)).toEqual([]);
    expect(tenantKeys(tenant)).toHaveLength(1);
    const [a, b] = await Promise.all([authorize(first.key, tenant), authorize(second.key, tenant)]);
    expect(a.principalId).not.toBe(b.principalId);
    expect(a.usageIdentifierKey).toBe(b.usageIdentifierKey);
  });

  it("a key of two tenants is counted against the path's tenant, and against its first tenant for a path it does not hold", async () => {
    const [first, second, stranger] = [uniqueTenant('rl'), uniqueTenant('rl'), uniqueTenant('rl')];
    const { key } = await create(first, second);
    expect(tenantKeys(first)).toHaveLength(1);
    expect(tenantKeys(second)).toHaveLength(1);
    expect((await authorize(key, first)).usageIdentifierKey).toBe(tenantKeys(first)[0]![1].value);
    expect((await authorize(key, second)).usageIdentifierKey).toBe(tenantKeys(second)[0]![1].value);
    expect((await authorize(key, stranger)).usageIdentifierKey).toBe(tenantKeys(first)[0]![1].value);
    expect(tenantKeys(stranger)).toHaveLength(0);
  });

  it('repairs a tenant key that was deleted, disabled, taken out of the plan or given another value by hand', async () => {
    const tenant = uniqueTenant('rl');
    await create(tenant);
    const [usageId, apiKey] = onlyTenantKey(tenant);
    apiKey.enabled = false;
    delete apiKey.usagePlanId;
    await create(tenant);
    expect(fake.apiKeys.get(usageId)).toMatchObject({ enabled: true, usagePlanId: PLAN });

    fake.apiKeys.delete(usageId);
    const wrong = fake.addApiKey({ name: tenantUsageKeyName(STAGE, tenant), value: 'x'.repeat(30), usagePlanId: PLAN });
    const { key } = await create(tenant);
    expect(fake.apiKeys.has(wrong)).toBe(false);
    const [, repaired] = onlyTenantKey(tenant);
    expect(repaired).toMatchObject({ value: tenantUsageKeyValue(STAGE, tenant), usagePlanId: PLAN });
    expect((await authorize(key, tenant)).usageIdentifierKey).toBe(repaired.value);
  });

  it('a stage without a usage plan is refused before any key is created', async () => {
    const before = fake.calls.length;
    const refused = await cxm('keys', 'create', '--stage', 'noplan', '--tenant', uniqueTenant('rl'), '--scope', 'cxm:*');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/stage noplan has no usage plan named 'cxm-noplan'.*deploy the stage first/);
    expect(fake.calls.slice(before)).toEqual(['GET /usageplans']);
  });

  it('when the plan refuses the tenant key, no tenant API key is stored', async () => {
    const tenant = uniqueTenant('rl');
    fake.failNextPlanKey();
    const refused = await cxm('keys', 'create', '--stage', STAGE, '--tenant', tenant, '--scope', 'cxm:*');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/the plan cannot take this key/);
    expect(await keys.list(tenant)).toEqual([]);
  });
});

describe('cxm keys revoke --stage', () => {
  it("keeps the tenant's usage key while another active key holds the tenant, and deletes it with the last; again is harmless", async () => {
    const tenant = uniqueTenant('rl');
    const first = await create(tenant);
    const second = await create(tenant);
    const [usageId] = onlyTenantKey(tenant);

    const kept = await cxm('keys', 'revoke', first.id, '--stage', STAGE);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain(`Kept the usage-plan key of ${tenant}: other active keys share it.`);
    expect(fake.apiKeys.has(usageId)).toBe(true);

    const last = await cxm('keys', 'revoke', second.id, '--stage', STAGE);
    expect(last.code).toBe(0);
    expect(last.stdout).toContain(`Deleted API Gateway key ${usageId} from the usage plan`);
    expect(fake.apiKeys.has(usageId)).toBe(false);

    const again = await cxm('keys', 'revoke', second.id, '--stage', STAGE);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('Deleted');
  });

  it('an expired key does not keep a tenant: revoking the last active one deletes the usage key', async () => {
    const tenant = uniqueTenant('rl');
    await issueKey(keys, { tenants: [tenant], scopes: ['cxm:*'], name: 'old', expiresAt: new Date(Date.now() + 1_000).toISOString() });
    const active = await create(tenant);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await cxm('keys', 'revoke', active.id, '--stage', STAGE)).code).toBe(0);
    expect(tenantKeys(tenant)).toEqual([]);
  });

  it('a key from before per-tenant limits loses its own API Gateway key too', async () => {
    const tenant = uniqueTenant('rl');
    const keyId = randomBytes(6).toString('hex');
    const legacyId = fake.addApiKey({ name: `cxm-${STAGE}-${keyId}`, value: randomBytes(20).toString('hex'), usagePlanId: PLAN, tags: { stage: STAGE } });
    // As D10 stored it: the key's own API Gateway key on its record.
    await keys.create({
      keyId,
      keyHash: randomBytes(32).toString('hex'),
      tenants: [tenant],
      scopes: ['cxm:*'],
      name: 'd10',
      createdAt: new Date().toISOString(),
      usageKey: { id: legacyId, value: fake.apiKeys.get(legacyId)!.value },
    });
    const revoked = await cxm('keys', 'revoke', keyId, '--stage', STAGE);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(legacyId);
    expect(fake.apiKeys.has(legacyId)).toBe(false);
  });
});

describe('cxm keys sync --stage', () => {
  it('gives every tenant with an active key its usage key, deletes the rest of the stage\'s, keeps D10 keys until --prune-legacy, and a rerun changes nothing', async () => {
    const [missing, orphan] = [uniqueTenant('rl'), uniqueTenant('rl')];
    // A key issued without the CLI (no usage key made), and a usage key whose tenant has no key.
    await issueKey(keys, { tenants: [missing], scopes: ['cxm:*'], name: 'direct' });
    const orphanId = fake.addApiKey({ name: tenantUsageKeyName(STAGE, orphan), value: tenantUsageKeyValue(STAGE, orphan), usagePlanId: PLAN, tags: { stage: STAGE } });
    const legacyId = fake.addApiKey({ name: `cxm-${STAGE}-abcdefabcdef`, value: 'd'.repeat(40), usagePlanId: PLAN, tags: { stage: STAGE } });
    // Not this stage's: another stage whose name starts alike, and a key nobody tagged.
    const otherStage = fake.addApiKey({ name: `cxm-${STAGE}-tenant-eu-x`, value: 'e'.repeat(40), tags: { stage: `${STAGE}-tenant-eu` } });
    const untagged = fake.addApiKey({ name: tenantUsageKeyName(STAGE, 'hand-made'), value: 'h'.repeat(40) });

    const synced = await cxm('keys', 'sync', '--stage', STAGE);
    expect(synced.code).toBe(0);
    expect(tenantKeys(missing)).toHaveLength(1);
    expect(tenantKeys(missing)[0]![1]).toMatchObject({ value: tenantUsageKeyValue(STAGE, missing), usagePlanId: PLAN });
    expect(fake.apiKeys.has(orphanId)).toBe(false);
    expect(synced.stdout).toContain(`Deleted API Gateway key ${orphanId} (${tenantUsageKeyName(STAGE, orphan)}).`);
    expect(fake.apiKeys.has(legacyId)).toBe(true);
    expect(synced.stdout).toMatch(/per-key API Gateway keys? from before per-tenant limits remain.*--prune-legacy/);
    for (const id of [otherStage, untagged]) expect(fake.apiKeys.has(id)).toBe(true);

    const before = fake.calls.length;
    const rerun = await cxm('keys', 'sync', '--stage', STAGE);
    expect(rerun.code).toBe(0);
    expect(writes(before)).toEqual([]);

    const pruned = await cxm('keys', 'sync', '--stage', STAGE, '--prune-legacy');
    expect(pruned.code).toBe(0);
    expect(fake.apiKeys.has(legacyId)).toBe(false);
    for (const id of [otherStage, untagged]) expect(fake.apiKeys.has(id)).toBe(true);
  });

  it('needs a stage', async () => {
    const refused = await cxm('keys', 'sync');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--stage/);
  });
});
