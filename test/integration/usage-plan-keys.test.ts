/**
 * Rate limits per tenant on a deployed stage: `cxm keys create --stage` gives each tenant one API
 * Gateway key (`cxm-<stage>-tenant-<id>`, its value derived from stage and tenant) in the stage's
 * usage plan, shared by all of its keys; the authorizer names the path tenant's key as
 * `usageIdentifierKey`; `revoke` deletes a tenant's key with its last active key; `sync` makes the
 * plan match the keys table. The CLI runs as an operator runs
 * it (in this process: test/support/cli-harness.ts), against DynamoDB Local tables named as the
 * stage's (`cxm-<stage>-*`), a fake API Gateway control plane reached through the SDK's own
 * endpoint variable, and the stages' key-tag secrets in bundle mode's Secrets Manager stand-in
 * (keys are tagged under them). The fake lists two keys a page and the stage's plan is on the
 * second page of plans, so every listing must follow `position`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables, type LocalDynamoConnection } from '#infra/local/emulators/dynamodb-local';
import { type LocalSecretsManager, startLocalSecretsManager } from '#infra/local/emulators/local-secrets-manager';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { buildAuthorizerEvent } from '#infra/local/gateway/build-proxy-event';
import { localSecretArn } from '#infra/local/runtime/resolve-environment';
import { secretName } from '#infra/stage-names';
import { routes } from '#shared/api/route-table';
import { issueKey } from '#shared/auth/issue-key';
import { parseKey } from '#shared/auth/key-format';
import type { KeysStore } from '#shared/auth/key-records';
import { verifyKeyTag } from '#shared/auth/key-tag';
import { tenantUsageKeyName, tenantUsageKeyValue, usageKeyName, usageKeyValue } from '#shared/auth/usage-identity';
import { documentClient } from '#shared/store/dynamo-client';
import { createKeysStore } from '#shared/store/keys-store';
import { cxm as runCxm } from '#test/support/cli-harness';
import { type FakeApiGateway, type FakeApiKey, startFakeApiGateway } from '#test/support/fake-api-gateway';
import { uniqueTenant } from '#test/support/test-api';
import { TEST_KEY_TAG_SECRET } from '#test/support/test-env';
import { workerDynamo } from '#test/support/worker-dynamo';

/** How this file's keys made without the CLI are issued: as the CLI would, under the stages' secret. */
const TAGGED = { tagSecret: TEST_KEY_TAG_SECRET };
/** The stage the authorizer runs as; create and revoke are tested on it. */
const STAGE = 'rltest';
const PLAN = 'plan-rl';
/** A stage of its own for `sync`, which works on the whole stage: its outcome is exact. */
const SYNC = 'rlsync';
const SYNC_PLAN = 'plan-rlsync';
let fake: FakeApiGateway;
/** The stages' key-tag secrets, as Secrets Manager holds them (bundle mode's stand-in). */
let secrets: LocalSecretsManager;
let keys: KeysStore;
let store: LocalDynamoConnection;
let authorize: (token: string, pathTenant: string) => Promise<APIGatewayAuthorizerResult>;
let env: Record<string, string>;
const stageBefore = process.env.CXM_STAGE;

const cxm = (...args: string[]) => runCxm(args, env);

async function createOn(stage: string, tenants: string[]): Promise<{ id: string; key: string; stdout: string }> {
  const created = await cxm(
    'keys',
    'create',
    '--stage',
    stage,
    ...tenants.flatMap((tenant) => ['--tenant', tenant]),
    '--scope',
    'cxm:*',
  );
  expect(created.stderr).toBe('');
  expect(created.code).toBe(0);
  const id = /Created key (\w+)/.exec(created.stdout)![1]!;
  const key = /Key: +(\S+)/.exec(created.stdout)![1]!;
  return { id, key, stdout: created.stdout };
}
const create = (...tenants: string[]) => createOn(STAGE, tenants);

/** The fake's keys named as the tenant's usage key on the stage, as [id, key]. */
const tenantKeys = (tenant: string, stage = STAGE) =>
  [...fake.apiKeys].filter(([, key]) => key.name === tenantUsageKeyName(stage, tenant));
/** The tenant's one usage key, as [id, key]. */
function onlyTenantKey(tenant: string, stage = STAGE): [string, FakeApiKey] {
  const found = tenantKeys(tenant, stage);
  expect(found, `API Gateway keys of tenant ${tenant}`).toHaveLength(1);
  return found[0]!;
}
/** What a tenant's usage key must be: its name, its derived value, enabled, in the stage's plan, tagged. */
const healthyTenantKey = (tenant: string, stage = STAGE, plan = PLAN) => ({
  name: tenantUsageKeyName(stage, tenant),
  value: tenantUsageKeyValue(stage, tenant),
  enabled: true,
  usagePlanId: plan,
  tags: { project: 'cxm-api', stage, tenant },
});
/** Every request since `from` that changed something (anything but a GET). */
const writes = (from: number) => fake.calls.slice(from).filter((call) => !call.startsWith('GET '));
/** The `Deleted API Gateway key <id> (<name>).` lines of `cxm keys sync`, as `<id> <name>`. */
const deletedLines = (stdout: string) =>
  [...stdout.matchAll(/^Deleted API Gateway key (\w+) \((\S+)\)\.$/gm)]
    .map((match) => `${match[1]} ${match[2]}`)
    .sort();

beforeAll(async () => {
  const { endpoint, credentials } = workerDynamo();
  store = { endpoint, credentials };
  fake = await startFakeApiGateway(
    [
      { id: 'plan-other', name: 'cxm-other' },
      // A stage whose name starts alike: the plan is found by its exact name.
      { id: 'plan-rl-eu', name: `cxm-${STAGE}-eu` },
      { id: PLAN, name: `cxm-${STAGE}` },
      { id: SYNC_PLAN, name: `cxm-${SYNC}` },
    ],
    // Small pages: every listing the CLI makes must follow `position`.
    { pageSize: 2 },
  );
  const tables = await createTables(store, STAGE);
  // Every stage the CLI is pointed at has its key-tag secret: the one the authorizer below checks with.
  secrets = await startLocalSecretsManager(
    [STAGE, SYNC, 'noplan'].map((stage) => {
      const name = secretName(stage, 'keyTagSecret');
      return { name, arn: localSecretArn('us-east-1', name), value: TEST_KEY_TAG_SECRET };
    }),
    store.credentials,
  );
  env = {
    AWS_ENDPOINT_URL_API_GATEWAY: fake.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: store.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: store.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: store.credentials.secretAccessKey,
    // No local stack: the CLI must use the stage, not $CXM_HOME.
    CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-rl-')),
  };
  pointAtLocalDynamo(store, tables as Parameters<typeof pointAtLocalDynamo>[1]);
  keys = createKeysStore(documentClient(), tables.keys!);
  // The stage's authorizer: its function has CXM_STAGE set by the stack.
  process.env.CXM_STAGE = STAGE;
  const { handler } = await import('#functions/authorizer');
  const route = routes.find((candidate) => candidate.id === 'listDocuments')!;
  // The event API Gateway sends for GET /provisioning/tenants/<pathTenant>/bots, as the local gateway builds it.
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
  await fake?.close();
  await secrets?.close();
});

describe('cxm keys create --stage: one usage-plan key per tenant', () => {
  it("creates the tenant's API Gateway key with its derived value in the stage plan; the authorizer names it", async () => {
    const tenant = uniqueTenant('rl');
    const before = fake.calls.length;
    const { id, key, stdout } = await create(tenant);
    const [usageId, apiKey] = onlyTenantKey(tenant);
    expect(apiKey).toEqual(healthyTenantKey(tenant));
    expect(writes(before)).toEqual(['POST /apikeys', `POST /usageplans/${PLAN}/keys`]);
    expect(stdout).toContain(
      `Usage plan: tenant ${tenant} is throttled through API Gateway key ${usageId} in plan cxm-${STAGE}, shared by its keys`,
    );
    const [stored] = await keys.list(tenant);
    expect(stored).toMatchObject({ keyId: id, tenants: [tenant] });

    const result = await authorize(key, tenant);
    expect(result.principalId).toBe(id);
    expect(result.usageIdentifierKey).toBe(apiKey.value);
  });

  it("a tenant's second key shares its usage key: nothing new in API Gateway, the same usageIdentifierKey", async () => {
    const tenant = uniqueTenant('rl');
    const first = await create(tenant);
    const [usageId] = onlyTenantKey(tenant);
    const before = fake.calls.length;
    const second = await create(tenant);
    expect(writes(before)).toEqual([]);
    expect(onlyTenantKey(tenant)[0]).toBe(usageId);
    expect(second.stdout).toContain(
      `Usage plan: tenant ${tenant} is throttled through API Gateway key ${usageId} in plan`,
    );
    const [a, b] = await Promise.all([authorize(first.key, tenant), authorize(second.key, tenant)]);
    expect([a.principalId, b.principalId]).toEqual([first.id, second.id]);
    expect(a.usageIdentifierKey).toBe(tenantUsageKeyValue(STAGE, tenant));
    expect(b.usageIdentifierKey).toBe(a.usageIdentifierKey);
  });

  it('a key of two tenants is throttled through an API Gateway key of its own, the same on every path; its tenants get none from it', async () => {
    const [first, second, stranger] = ['rl-a', 'rl-b', 'rl-c'].map((prefix) => uniqueTenant(prefix));
    const before = fake.calls.length;
    const { id, key, stdout } = await create(first!, second!);
    const owner = { kind: 'key', keyId: id } as const;
    const own = [...fake.apiKeys].filter(([, apiKey]) => apiKey.name === usageKeyName(STAGE, owner));
    expect(own).toHaveLength(1);
    const [ownId, ownKey] = own[0]!;
    expect(ownKey).toEqual({
      name: `cxm-${STAGE}-key-${id}`,
      value: usageKeyValue(STAGE, owner),
      enabled: true,
      usagePlanId: PLAN,
      tags: { project: 'cxm-api', stage: STAGE, key: id },
    });
    expect(writes(before)).toEqual(['POST /apikeys', `POST /usageplans/${PLAN}/keys`]);
    expect(tenantKeys(first!)).toEqual([]);
    expect(tenantKeys(second!)).toEqual([]);
    expect(stdout).toContain(
      `Usage plan: this key of several tenants is throttled through an API Gateway key of its own, ${ownId} (cxm-${STAGE}-key-${id}), in plan cxm-${STAGE}`,
    );
    // The authorizer's answer is the same whatever the path: the gateway caches it per key.
    for (const path of [first!, second!, stranger!])
      expect((await authorize(key, path)).usageIdentifierKey).toBe(ownKey.value);
  });

  it('repairs a tenant key that was disabled, taken out of the plan, deleted or given another value by hand, keeping the derived value', async () => {
    const tenant = uniqueTenant('rl');
    await create(tenant);
    const [usageId, apiKey] = onlyTenantKey(tenant);
    apiKey.enabled = false;
    delete apiKey.usagePlanId;
    let before = fake.calls.length;
    await create(tenant);
    // Repaired in place: the same key, no new one.
    expect(writes(before)).toEqual([`PATCH /apikeys/${usageId}`, `POST /usageplans/${PLAN}/keys`]);
    expect(onlyTenantKey(tenant)).toEqual([usageId, healthyTenantKey(tenant)]);

    fake.apiKeys.delete(usageId);
    await create(tenant);
    const [recreatedId, recreated] = onlyTenantKey(tenant);
    expect(recreatedId).not.toBe(usageId);
    expect(recreated).toEqual(healthyTenantKey(tenant));

    // A key of that name with a value the authorizer never names is replaced.
    fake.apiKeys.delete(recreatedId);
    const wrong = fake.addApiKey({ name: tenantUsageKeyName(STAGE, tenant), value: 'x'.repeat(30), usagePlanId: PLAN });
    before = fake.calls.length;
    const { key } = await create(tenant);
    expect(writes(before)[0]).toBe(`DELETE /apikeys/${wrong}`);
    expect(fake.apiKeys.has(wrong)).toBe(false);
    const [, replaced] = onlyTenantKey(tenant);
    expect(replaced).toEqual(healthyTenantKey(tenant));
    expect((await authorize(key, tenant)).usageIdentifierKey).toBe(replaced.value);
  });

  it("another stage's tenant key bearing the same name is never replaced or deleted: create and revoke touch only this stage's", async () => {
    // Stage `rltest`'s tenant `x-tenant-<id>` and stage `rltest-tenant-x`'s tenant `<id>` are both
    // `cxm-rltest-tenant-x-tenant-<id>`: the stage tag tells them apart.
    const suffix = uniqueTenant('rl');
    const tenant = `x-tenant-${suffix}`;
    const otherStage = `${STAGE}-tenant-x`;
    expect(tenantUsageKeyName(otherStage, suffix)).toBe(tenantUsageKeyName(STAGE, tenant));
    const foreignId = fake.addApiKey({
      name: tenantUsageKeyName(otherStage, suffix),
      value: tenantUsageKeyValue(otherStage, suffix),
      usagePlanId: 'plan-other',
      tags: { project: 'cxm-api', stage: otherStage, tenant: suffix },
    });
    const foreignBefore = structuredClone(fake.apiKeys.get(foreignId));

    const created = await create(tenant);
    expect(fake.apiKeys.get(foreignId)).toEqual(foreignBefore);
    const ours = tenantKeys(tenant).filter(([id]) => id !== foreignId);
    expect(ours.map(([, key]) => key)).toEqual([healthyTenantKey(tenant)]);

    const revoked = await cxm('keys', 'revoke', created.id, '--stage', STAGE);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Deleted API Gateway key ${ours[0]![0]} from the usage plan`);
    expect(revoked.stdout).not.toContain(foreignId);
    expect(tenantKeys(tenant)).toEqual([[foreignId, foreignBefore]]);
    fake.apiKeys.delete(foreignId);
  });

  it('keys create of one tenant in two runs at once: both succeed, with one tenant key in the plan', async () => {
    const tenant = uniqueTenant('rl');
    const [a, b] = await Promise.all([create(tenant), create(tenant)]);
    const [usageId, apiKey] = onlyTenantKey(tenant);
    expect(apiKey).toEqual(healthyTenantKey(tenant));
    for (const created of [a, b])
      expect(created.stdout).toContain(`tenant ${tenant} is throttled through API Gateway key ${usageId}`);
  });

  it('a concurrent creator of the same tenant key (409 on CreateApiKey, or on CreateUsagePlanKey) is what was wanted', async () => {
    const tenant = uniqueTenant('rl');
    fake.raceNextApiKey();
    let before = fake.calls.length;
    await create(tenant);
    expect(writes(before)).toEqual(['POST /apikeys', `POST /usageplans/${PLAN}/keys`]);
    expect(onlyTenantKey(tenant)[1]).toEqual(healthyTenantKey(tenant));

    const other = uniqueTenant('rl');
    fake.raceNextPlanKey();
    before = fake.calls.length;
    await create(other);
    expect(writes(before)).toEqual(['POST /apikeys', `POST /usageplans/${PLAN}/keys`]);
    expect(onlyTenantKey(other)[1]).toEqual(healthyTenantKey(other));
  });

  it("a key elsewhere holding the tenant key's value is refused with what to do, and no tenant API key is stored", async () => {
    const tenant = uniqueTenant('rl');
    const squatter = fake.addApiKey({ name: 'made-by-hand', value: tenantUsageKeyValue(STAGE, tenant) });
    const refused = await cxm('keys', 'create', '--stage', STAGE, '--tenant', tenant, '--scope', 'cxm:*');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `API Gateway refused the usage key '${tenantUsageKeyName(STAGE, tenant)}' as a duplicate value`,
    );
    expect(refused.stderr).toContain(`cxm keys sync --stage ${STAGE}`);
    expect(await keys.list(tenant)).toEqual([]);
    expect(tenantKeys(tenant)).toEqual([]);
    fake.apiKeys.delete(squatter);
  });

  it("tags the key under the stage's key-tag secret, read from Secrets Manager, and records it as tagged", async () => {
    const tenant = uniqueTenant('rl');
    const { id, key } = await create(tenant);
    const parsed = parseKey(key)!;
    expect(verifyKeyTag([TEST_KEY_TAG_SECRET], parsed.body, parsed.tag!)).toBe(true);
    expect(await keys.list(tenant)).toEqual([expect.objectContaining({ keyId: id, tagged: true })]);
  });

  it('a stage without a key-tag secret (deployed before key tags) is refused with what to do, before anything is written', async () => {
    const before = fake.calls.length;
    const tenant = uniqueTenant('rl');
    const refused = await cxm('keys', 'create', '--stage', 'notags', '--tenant', tenant, '--scope', 'cxm:*');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /stage notags has no secret cxm-notags-key-tag-secret in this account and region: deploy the stage first/,
    );
    expect(fake.calls.slice(before)).toEqual([]);
  });

  it('a stage without a usage plan is refused before any key is created', async () => {
    const before = fake.calls.length;
    const refused = await cxm(
      'keys',
      'create',
      '--stage',
      'noplan',
      '--tenant',
      uniqueTenant('rl'),
      '--scope',
      'cxm:*',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/stage noplan has no usage plan named 'cxm-noplan'.*deploy the stage first/);
    // Both pages of plans read, nothing else.
    expect(fake.calls.slice(before)).toEqual(['GET /usageplans', 'GET /usageplans']);
  });

  it('when the plan refuses the tenant key, no tenant API key is stored; the next create puts the key made in the plan', async () => {
    const tenant = uniqueTenant('rl');
    fake.failNextPlanKey();
    const refused = await cxm('keys', 'create', '--stage', STAGE, '--tenant', tenant, '--scope', 'cxm:*');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/the plan cannot take this key/);
    expect(await keys.list(tenant)).toEqual([]);
    const [usageId, leftOver] = onlyTenantKey(tenant);
    expect(leftOver.usagePlanId).toBeUndefined();

    const before = fake.calls.length;
    const { key } = await create(tenant);
    expect(writes(before)).toEqual([`POST /usageplans/${PLAN}/keys`]);
    expect(onlyTenantKey(tenant)).toEqual([usageId, healthyTenantKey(tenant)]);
    expect((await authorize(key, tenant)).usageIdentifierKey).toBe(tenantUsageKeyValue(STAGE, tenant));
  });
});

describe('cxm keys revoke --stage', () => {
  it("keeps the tenant's usage key while another active key holds the tenant, and deletes it with the last; again is harmless", async () => {
    const tenant = uniqueTenant('rl');
    const first = await create(tenant);
    const second = await create(tenant);
    const [usageId] = onlyTenantKey(tenant);

    let before = fake.calls.length;
    const kept = await cxm('keys', 'revoke', first.id, '--stage', STAGE);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain(`Kept the usage-plan key of ${tenant}: other active keys share it.`);
    expect(kept.stdout).not.toContain('Deleted');
    expect(writes(before)).toEqual([]);
    expect(fake.apiKeys.has(usageId)).toBe(true);
    // The other key still passes, through the same tenant key.
    expect((await authorize(second.key, tenant)).usageIdentifierKey).toBe(tenantUsageKeyValue(STAGE, tenant));

    const last = await cxm('keys', 'revoke', second.id, '--stage', STAGE);
    expect(last.code).toBe(0);
    expect(last.stdout).toContain(`Deleted API Gateway key ${usageId} from the usage plan`);
    expect(last.stdout).not.toContain('Kept');
    expect(tenantKeys(tenant)).toEqual([]);
    await expect(authorize(second.key, tenant)).rejects.toThrow('Unauthorized');

    before = fake.calls.length;
    const again = await cxm('keys', 'revoke', second.id, '--stage', STAGE);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('Deleted');
    expect(writes(before)).toEqual([]);
    expect(tenantKeys(tenant)).toEqual([]);
  });

  it("a key of two tenants takes its own usage key with it, and leaves its tenants' keys to their own keys", async () => {
    const [shared, alone] = [uniqueTenant('rl'), uniqueTenant('rl')];
    const both = await create(shared, alone);
    const other = await create(shared);
    const [sharedId] = onlyTenantKey(shared);
    const [ownId] = [...fake.apiKeys].find(
      ([, apiKey]) => apiKey.name === usageKeyName(STAGE, { kind: 'key', keyId: both.id }),
    )!;

    const revoked = await cxm('keys', 'revoke', both.id, '--stage', STAGE);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Deleted API Gateway key ${ownId} from the usage plan`);
    expect(fake.apiKeys.has(ownId)).toBe(false);
    expect(tenantKeys(alone)).toEqual([]);
    expect(onlyTenantKey(shared)[0]).toBe(sharedId);
    expect((await authorize(other.key, shared)).usageIdentifierKey).toBe(tenantUsageKeyValue(STAGE, shared));
  });

  it('an expired key does not keep a tenant: revoking the last active one deletes the usage key', async () => {
    const tenant = uniqueTenant('rl');
    await issueKey(
      keys,
      { tenants: [tenant], scopes: ['cxm:*'], name: 'old', expiresAt: new Date(Date.now() + 1_000).toISOString() },
      TAGGED,
    );
    const active = await create(tenant);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const revoked = await cxm('keys', 'revoke', active.id, '--stage', STAGE);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).not.toContain('Kept');
    expect(tenantKeys(tenant)).toEqual([]);
  });
});

describe('cxm keys sync --stage', () => {
  it("gives every tenant with an active key its usage key, deletes those of tenants without one, leaves every key that is not this stage's usage key; a rerun changes nothing", async () => {
    const syncKeys = createKeysStore(documentClient(), (await createTables(store, SYNC)).keys!);
    const [healthy, missing, lost, unplanned, wrongValue, orphan, revoked, expired] = [
      'ok',
      'missing',
      'lost',
      'unplanned',
      'wrong',
      'orphan',
      'revoked',
      'expired',
    ].map((label) => uniqueTenant(`sy-${label}`)) as [string, string, string, string, string, string, string, string];
    // Through the CLI, each with its usage key...
    for (const t of [healthy, lost, unplanned, wrongValue]) await createOn(SYNC, [t]);
    const [healthyId] = onlyTenantKey(healthy, SYNC);
    const [lostId] = onlyTenantKey(lost, SYNC);
    const [unplannedId, unplannedKey] = onlyTenantKey(unplanned, SYNC);
    const [wrongValueId, wrongValueKey] = onlyTenantKey(wrongValue, SYNC);
    // ...then broken by hand: deleted, disabled and out of the plan, another value.
    fake.apiKeys.delete(lostId);
    unplannedKey.enabled = false;
    delete unplannedKey.usagePlanId;
    wrongValueKey.value = 'w'.repeat(40);
    // A key issued without the CLI (no usage key made).
    await issueKey(syncKeys, { tenants: [missing], scopes: ['cxm:*'], name: 'direct' }, TAGGED);
    // Tenants without an active key whose usage key stayed: none at all, only a revoked one, only an expired one.
    const stale = Object.fromEntries(
      [orphan, revoked, expired].map((t) => [
        t,
        fake.addApiKey({
          name: tenantUsageKeyName(SYNC, t),
          value: tenantUsageKeyValue(SYNC, t),
          usagePlanId: SYNC_PLAN,
          tags: { project: 'cxm-api', stage: SYNC, tenant: t },
        }),
      ]),
    );
    const { stored: revokedKey } = await issueKey(
      syncKeys,
      { tenants: [revoked], scopes: ['cxm:*'], name: 'revoked' },
      TAGGED,
    );
    await syncKeys.revoke(revokedKey.keyId, new Date());
    await issueKey(
      syncKeys,
      { tenants: [expired], scopes: ['cxm:*'], name: 'expired', expiresAt: new Date(Date.now() - 1_000).toISOString() },
      TAGGED,
    );
    // Not this stage's usage keys, though named `cxm-rlsync-...`: another stage's tenant key; a key
    // of stage rlsync-tenant-eu, which reads as tenant `eu-abcdef012345`'s key here; a tenant key of
    // stage rlsync-tenant, which reads as tenant `tenant-acme`'s; keys of this stage the CLI did not
    // make (one named after a key id, in the plan); a tenant key made by hand without tags.
    const foreign = [
      fake.addApiKey({
        name: `cxm-${SYNC}-abcdef012345`,
        usagePlanId: SYNC_PLAN,
        tags: { project: 'cxm-api', stage: SYNC },
      }),
      fake.addApiKey({
        name: `cxm-${SYNC}-eu-tenant-${healthy}`,
        value: tenantUsageKeyValue(`${SYNC}-eu`, healthy),
        tags: { project: 'cxm-api', stage: `${SYNC}-eu`, tenant: healthy },
      }),
      fake.addApiKey({
        name: `cxm-${SYNC}-tenant-eu-abcdef012345`,
        tags: { project: 'cxm-api', stage: `${SYNC}-tenant-eu` },
      }),
      fake.addApiKey({
        name: `cxm-${SYNC}-tenant-tenant-acme`,
        tags: { project: 'cxm-api', stage: `${SYNC}-tenant`, tenant: 'acme' },
      }),
      fake.addApiKey({ name: `cxm-${SYNC}-dashboard`, tags: { stage: SYNC } }),
      fake.addApiKey({ name: tenantUsageKeyName(SYNC, 'hand-made'), value: tenantUsageKeyValue(SYNC, 'hand-made') }),
    ];
    const snapshot = (ids: string[]) => ids.map((id) => structuredClone(fake.apiKeys.get(id)));
    const foreignBefore = snapshot(foreign);

    const synced = await cxm('keys', 'sync', '--stage', SYNC);
    expect(synced.stderr).toBe('');
    expect(synced.code).toBe(0);
    const active = [healthy, missing, lost, unplanned, wrongValue];
    expect(synced.stdout).toContain(
      `5 usage owners with active keys (tenants, and keys of several tenants): each has its API Gateway key in plan cxm-${SYNC}.`,
    );
    for (const t of active) expect(onlyTenantKey(t, SYNC)[1], t).toEqual(healthyTenantKey(t, SYNC, SYNC_PLAN));
    // Repaired in place where the key was there with its value; made again where not.
    expect(onlyTenantKey(healthy, SYNC)[0]).toBe(healthyId);
    expect(onlyTenantKey(unplanned, SYNC)[0]).toBe(unplannedId);
    expect(fake.apiKeys.has(wrongValueId)).toBe(false);
    // Deleted: the usage keys of tenants without an active key, and nothing else.
    expect(deletedLines(synced.stdout)).toEqual(
      Object.entries(stale)
        .map(([t, id]) => `${id} ${tenantUsageKeyName(SYNC, t)}`)
        .sort(),
    );
    for (const id of Object.values(stale)) expect(fake.apiKeys.has(id)).toBe(false);
    expect(snapshot(foreign)).toEqual(foreignBefore);

    const before = fake.calls.length;
    const rerun = await cxm('keys', 'sync', '--stage', SYNC);
    expect(rerun.code).toBe(0);
    expect(writes(before)).toEqual([]);
    expect(deletedLines(rerun.stdout)).toEqual([]);
    expect(snapshot(foreign)).toEqual(foreignBefore);
    for (const t of active) expect(onlyTenantKey(t, SYNC)[1]).toEqual(healthyTenantKey(t, SYNC, SYNC_PLAN));
  });

  it('a stage without a usage plan is refused before anything changes', async () => {
    const stage = 'rlnoplan';
    const noPlanKeys = createKeysStore(documentClient(), (await createTables(store, stage)).keys!);
    await issueKey(noPlanKeys, { tenants: [uniqueTenant('rl')], scopes: ['cxm:*'], name: 'direct' }, TAGGED);
    const before = fake.calls.length;
    const refused = await cxm('keys', 'sync', '--stage', stage);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`stage ${stage} has no usage plan named 'cxm-${stage}'`));
    expect(writes(before)).toEqual([]);
  });

  it('a stage without a usage plan and without keys is refused too, not reported in sync', async () => {
    const stage = 'rlempty';
    await createTables(store, stage);
    const before = fake.calls.length;
    const refused = await cxm('keys', 'sync', '--stage', stage);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`stage ${stage} has no usage plan named 'cxm-${stage}'`));
    expect(refused.stdout).not.toMatch(/usage owners? with active keys/);
    expect(writes(before)).toEqual([]);
  });

  it('needs a stage', async () => {
    const refused = await cxm('keys', 'sync');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--stage/);
  });
});
