/**
 * D10 on a deployed stage: `cxm keys create --stage` gives every tenant key its own API Gateway key
 * in the stage's usage plan, the authorizer names it as `usageIdentifierKey`, and `revoke` deletes
 * it. The CLI runs as an operator runs it, against DynamoDB Local tables named as the stage's
 * (`cxm-<stage>-*`) and a fake API Gateway control plane reached through the SDK's own endpoint
 * variable.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { issueKey } from '#shared/auth/issue-key';
import { documentClient } from '#shared/store/dynamo-client';
import { createKeysStore, type KeysStore } from '#shared/store/keys-store';
import { routes } from '#shared/routes';
import { buildAuthorizerEvent } from '#infra/local/build-proxy-event';
import { createTables } from '#infra/local/dynamodb-local';
import { useLocalDynamo } from '#infra/local/use-local-dynamo';
import { startFakeApiGateway, type FakeApiGateway } from '#test/support/fake-api-gateway';
import { run } from '#test/support/run-process';
import { uniqueTenant } from '#test/support/test-api';

const STAGE = 'rltest';
const tenant = uniqueTenant('rl');
let fake: FakeApiGateway;
let keys: KeysStore;
let authorize: (token: string) => Promise<APIGatewayAuthorizerResult>;
let env: Record<string, string>;

const cxm = (...args: string[]) => run('node', ['infra/cli/cxm.mjs', ...args], env);

beforeAll(async () => {
  const { endpoint } = inject('dynamo');
  fake = await startFakeApiGateway([
    { id: 'plan-other', name: 'cxm-other' },
    { id: 'plan-rl', name: `cxm-${STAGE}` },
  ]);
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
  const { handler } = await import('#functions/authorizer');
  const route = routes.find((candidate) => candidate.id === 'listDocuments')!;
  // The event API Gateway sends, as the local gateway builds it.
  authorize = (token) =>
    handler(
      buildAuthorizerEvent(
        {
          method: route.method,
          rawPath: `/api/v1/provisioning/tenants/${tenant}/bots`,
          rawQuery: '',
          rawHeaders: ['Authorization', `Bearer ${token}`],
          body: Buffer.alloc(0),
          sourceIp: '127.0.0.1',
          host: 'localhost',
          requestId: 'r1',
          now: new Date(),
        },
        route,
        { tenantId: tenant, collection: 'bots' },
      ),
    );
});
afterAll(() => fake.close());

describe('cxm keys --stage with a usage plan', () => {
  it('create adds an API Gateway key to the stage plan; the authorizer returns its value as usageIdentifierKey', async () => {
    const created = await cxm('keys', 'create', '--stage', STAGE, '--tenant', tenant, '--scope', 'cxm:*', '--json');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const { id, key } = JSON.parse(created.stdout) as { id: string; key: string };

    const stored = (await keys.list(tenant)).find((candidate) => candidate.keyId === id);
    expect(stored?.usageKey).toBeDefined();
    const apiKey = fake.apiKeys.get(stored!.usageKey!.id);
    expect(apiKey).toEqual({ name: `cxm-${STAGE}-${id}`, value: stored!.usageKey!.value, usagePlanId: 'plan-rl' });

    const result = await authorize(key);
    expect(result.principalId).toBe(id);
    expect(result.usageIdentifierKey).toBe(apiKey!.value);
  });

  it('revoke deletes the API Gateway key, so the plan stops counting the key at all', async () => {
    const created = await cxm('keys', 'create', '--stage', STAGE, '--tenant', tenant, '--scope', 'cxm:*', '--name', 'ops');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/Usage plan: API Gateway key \w+ in plan cxm-rltest/);
    const keyId = /Created key (\w+)/.exec(created.stdout)![1]!;
    const usageKeyId = (await keys.list(tenant)).find((candidate) => candidate.keyId === keyId)!.usageKey!.id;

    const revoked = await cxm('keys', 'revoke', keyId, '--stage', STAGE);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Deleted its API Gateway key ${usageKeyId}`);
    expect(fake.apiKeys.has(usageKeyId)).toBe(false);
    expect(fake.calls).toContain(`DELETE /apikeys/${usageKeyId}`);
  });

  it('a stage without a usage plan is refused before any key is created', async () => {
    const before = fake.calls.length;
    const refused = await cxm('keys', 'create', '--stage', 'noplan', '--tenant', tenant, '--scope', 'cxm:*');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/stage noplan has no usage plan named 'cxm-noplan'.*deploy the stage first/);
    expect(fake.calls.slice(before)).toEqual(['GET /usageplans']);
  });

  it('when the plan refuses the key, the API Gateway key is deleted again and no tenant key is stored', async () => {
    const keysBefore = (await keys.list(tenant)).length;
    const apiKeysBefore = fake.apiKeys.size;
    fake.failNextPlanKey();
    const refused = await cxm('keys', 'create', '--stage', STAGE, '--tenant', tenant, '--scope', 'cxm:*');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/the plan cannot take this key/);
    expect(fake.apiKeys.size).toBe(apiKeysBefore);
    expect((await keys.list(tenant)).length).toBe(keysBefore);
  });

  it('a key issued without a plan (the local stack) carries no usageIdentifierKey', async () => {
    const { key } = await issueKey(keys, { tenants: [tenant], scopes: ['cxm:*'], name: 'local' });
    const result = await authorize(key);
    expect(result.context?.tenants).toBe(tenant);
    expect(result).not.toHaveProperty('usageIdentifierKey');
  });
});

describe('issueKey with a usage plan', () => {
  it('deletes the usage key when the tenant key cannot be stored', async () => {
    const removed: string[] = [];
    const failing: KeysStore = { ...keys, create: () => Promise.reject(new Error('store down')) };
    const plan = { add: async () => ({ id: 'uk1', value: 'v'.repeat(40) }), remove: async (id: string) => void removed.push(id) };
    await expect(issueKey(failing, { tenants: [tenant], scopes: ['cxm:*'], name: 'x' }, new Date(), plan)).rejects.toThrow('store down');
    expect(removed).toEqual(['uk1']);
  });
});
