/**
 * `cxm smoke` as an operator runs it, in this process (test/support/cli-harness.ts; as the bin
 * itself where Ctrl-C stops it) against a local gateway over real HTTP.
 * With --url and a given key every check passes on a healthy API and nothing but the smoke
 * document lands in the tenant; a wrong URL and a wrong key each fail with one line saying what
 * to do. With --stage the URL comes from the stack's ApiUrl output (a fake CloudFormation), the
 * CLI makes a temporary key, tagged under the stage's key-tag secret (bundle mode's Secrets Manager
 * stand-in), in the stage's keys table and its tenant's API Gateway key
 * (`cxm-<stage>-tenant-<tenant>`) in the usage plan (a fake control plane), and revokes the key
 * afterwards, deleting the tenant's API Gateway key when no other active key holds the tenant:
 * after a passing run, a failing one, and one interrupted with Ctrl-C; a tenant with a key of its
 * own keeps its API Gateway key. The stage is the one whose tables the gateway reads, so the
 * CLI's key works there exactly as on AWS; a proxy in front of the gateway breaks or holds the
 * routes of one tenant, so the tests run side by side.
 *
 * @group sources bundles
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smokeScopes } from '#infra/cli/smoke/smoke-checks';
import { freePort } from '#infra/local/emulators/dynamodb-local';
import { type LocalSecretsManager, startLocalSecretsManager } from '#infra/local/emulators/local-secrets-manager';
import { localSecretArn } from '#infra/local/runtime/resolve-environment';
import { API_URL_OUTPUT, secretName, stackName, usagePlanName } from '#infra/stage-names';
import { routes } from '#shared/api/route-table';
import { tenantUsageKeyName, tenantUsageKeyValue } from '#shared/auth/usage-identity';
import { physicalTableName, type TableId } from '#shared/store/table-specs';
import { type ApiFaultProxy, startApiFaultProxy } from '#test/support/api-fault-proxy';
import { cxm } from '#test/support/cli-harness';
import { type FakeApiGateway, startFakeApiGateway } from '#test/support/fake-api-gateway';
import { type FakeCloudFormation, startFakeCloudFormation } from '#test/support/fake-cloudformation';
import { ownLines, run } from '#test/support/run-process';
import { inBundleRuntime } from '#test/support/runtime';
import { tenantItemKeys } from '#test/support/tenant-items';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';
import { TEST_KEY_TAG_SECRET } from '#test/support/test-env';

/**
 * What the CLI does whatever serves the API (its refusals, its keys and their revocation, its
 * signals) runs with the sources only; the bundles run the checks that cross every route, with a
 * given key and with a key the CLI made for the stage.
 */
const cliOnly = it.skipIf(inBundleRuntime);

interface Report {
  url: string;
  tenant: string;
  checks: {
    name: string;
    route: string | null;
    method: string;
    path: string;
    status: number | null;
    ms: number;
    result: 'pass' | 'fail';
    reason: string | null;
    detail: string | null;
  }[];
  passed: number;
  failed: number;
}

const PLAN_ID = 'plan-smoke';
let api: TestApi;
let proxy: ApiFaultProxy;
let cloudFormation: FakeCloudFormation;
let apiGateway: FakeApiGateway;
let secrets: LocalSecretsManager;
let stage: string;
let urlEnv: Record<string, string>;
let stageEnv: Record<string, string>;

/** `cxm smoke <args>` in this process. */
const smoke = (env: Record<string, string>, args: string[]) => cxm(['smoke', ...args], env);
/** `cxm smoke <args>` as a child process (the bin), for a test that signals it: `onSpawn` gets the child. */
const smokeProcess = (env: Record<string, string>, args: string[], onSpawn: (child: ChildProcess) => void) =>
  run('node', ['infra/cli/cxm.mjs', 'smoke', ...args], env, 60_000, onSpawn);

beforeAll(async () => {
  api = await startTestApi();
  // The stage whose tables (`cxm-<stage>-*`) the gateway reads: `--stage` finds them by that name.
  stage = /^cxm-(.+)-keys$/.exec(api.tables.keys)?.[1] ?? '';
  for (const [id, table] of Object.entries(api.tables)) expect(table).toBe(physicalTableName(stage, id as TableId));
  proxy = await startApiFaultProxy(api.url);
  // An ApiUrl ends in a slash, as API Gateway's does.
  cloudFormation = await startFakeCloudFormation({
    [stackName(stage)]: { [API_URL_OUTPUT]: `${proxy.url}/`, EventBusName: 'unused' },
  });
  apiGateway = await startFakeApiGateway([{ id: PLAN_ID, name: usagePlanName(stage) }]);
  // The stage's key-tag secret, which the temporary key is tagged under: the gateway's own.
  const tagSecretName = secretName(stage, 'keyTagSecret');
  secrets = await startLocalSecretsManager(
    [{ name: tagSecretName, arn: localSecretArn('us-east-1', tagSecretName), value: TEST_KEY_TAG_SECRET }],
    api.dynamo.credentials,
  );
  // No local stack in either: the CLI must use what it is told.
  urlEnv = { CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-smoke-')) };
  stageEnv = {
    ...urlEnv,
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
    AWS_ENDPOINT_URL_API_GATEWAY: apiGateway.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: api.dynamo.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: api.dynamo.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: api.dynamo.credentials.secretAccessKey,
  };
});
afterAll(async () => {
  await Promise.all([api?.close(), proxy?.close(), cloudFormation?.close(), apiGateway?.close(), secrets?.close()]);
});

/** The smoke tenant's API Gateway keys (its usage-plan key, shared by its keys), as [id, key]. */
const tenantUsageKeys = (tenant: string) =>
  [...apiGateway.apiKeys].filter(([, key]) => key.name === tenantUsageKeyName(stage, tenant));

/** The id of the API Gateway key the temporary key was throttled through, from its `Created` line. */
function createdUsageKeyId(tenant: string, stderr: string): string {
  const id = new RegExp(
    `^Created the temporary key \\w+ for tenant ${tenant}, throttled through its tenant's API Gateway key (\\w+), expiring at `,
    'm',
  ).exec(stderr)?.[1];
  expect(id, stderr).toBeDefined();
  return id!;
}

/**
 * The tenant's only key, which the smoke run made: revoked, and (no other key holding the tenant) the tenant's API Gateway key, the one it was
 * throttled through, deleted from the plan.
 */
async function expectTemporaryKeyRevoked(tenant: string, stderr: string): Promise<void> {
  const keys = await api.keys.list(tenant);
  expect(keys).toHaveLength(1);
  const [temporary] = keys;
  expect(temporary).toMatchObject({
    name: 'cxm smoke',
    tenants: [tenant],
    scopes: smokeScopes(),
    revokedAt: expect.any(String),
  });
  const usageKeyId = createdUsageKeyId(tenant, stderr);
  expect(stderr).toContain(
    `Revoked the temporary key ${temporary!.keyId} and deleted the usage-plan key ${usageKeyId} no other key needs.`,
  );
  expect(apiGateway.calls).toContain(`DELETE /apikeys/${usageKeyId}`);
  expect(apiGateway.apiKeys.has(usageKeyId)).toBe(false);
  expect(tenantUsageKeys(tenant)).toEqual([]);
}

describe.concurrent('cxm smoke', () => {
  it('--url: every check passes on a healthy API, --json prints {url, tenant, checks, passed, failed}, and the tenant gains only the smoke document', async () => {
    const tenant = uniqueTenant('smoke');
    // The scopes `cxm smoke --help` lists are enough.
    const { key } = await api.createKey([tenant], smokeScopes());
    const result = await smoke(urlEnv, ['--url', api.url, '--key', key, '--tenant', tenant, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(Object.keys(report).sort()).toEqual(['checks', 'failed', 'passed', 'tenant', 'url']);
    expect(report).toMatchObject({ url: api.url, tenant, passed: report.checks.length, failed: 0 });
    for (const check of report.checks) {
      expect(Object.keys(check).sort()).toEqual([
        'detail',
        'method',
        'ms',
        'name',
        'path',
        'reason',
        'result',
        'route',
        'status',
      ]);
      expect(check, check.name).toMatchObject({
        result: 'pass',
        reason: null,
        status: expect.any(Number),
        ms: expect.any(Number),
      });
    }
    // One check or more per operation of the route table, and the gateway's own answers.
    expect(new Set(report.checks.map((check) => check.route))).toEqual(
      new Set([null, ...routes.map((route) => route.id)]),
    );
    expect(
      report.checks.filter((check) => check.route === null).map((check) => `${check.name}: ${check.status}`),
    ).toEqual([
      'OpenAPI document: 200',
      '401 without a key: 401',
      '403 for a tenant not held: 403',
      '404 for an unknown route: 404',
    ]);
    expect(report.checks.filter((check) => check.route === 'mcpBots').map((check) => check.name)).toEqual([
      'MCP tools/list',
      'MCP tools/call list_bots',
    ]);
    // The note went to a conversation that does not exist: a 404, nothing written. (No route
    // writes to the other tables.)
    const tables = ['conversations', 'documents'] as const;
    const items = await Promise.all(
      tables.map(async (table) => (await tenantItemKeys(api.tables[table], tenant)).map((item) => `${table}: ${item}`)),
    );
    expect(items.flat()).toEqual([`documents: ${tenant}#cxm-smoke smoke-check`]);
  });

  cliOnly(
    'a wrong URL fails with one line saying what to do: nothing listening, or something that is not this API',
    async () => {
      const args = ['--key', 'cxm_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', '--tenant', 'acme'];
      const [refused, notThisApi] = await Promise.all([
        smoke(urlEnv, ['--url', `http://127.0.0.1:${await freePort()}`, ...args]),
        smoke(urlEnv, ['--url', `${api.url}/docs/`, ...args]),
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(ownLines(refused.stderr)).toEqual([
        expect.stringMatching(
          /^cxm: cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused\. Check --url: .*ApiUrl/,
        ),
      ]);
      expect(notThisApi.code).toBe(1);
      expect(ownLines(notThisApi.stderr)).toEqual([
        expect.stringMatching(
          /^cxm: http:\/\/127\.0\.0\.1:\d+\/docs does not look like the CXM API: GET \/openapi\.json answered 404 .*Check --url/,
        ),
      ]);
    },
  );

  cliOnly(
    'a wrong key fails with one line saying the key was refused and how to make one, after the table',
    async () => {
      const result = await smoke(urlEnv, [
        '--url',
        api.url,
        '--key',
        'cxm_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
        '--tenant',
        'acme',
      ]);
      expect(result.code).toBe(1);
      // The table still shows what was asked: the keyless checks pass, every other one was refused.
      expect(result.stdout).toMatch(/\n401 without a key .* pass\n/);
      expect(result.stdout).toMatch(
        /\ninternal note, no such conversation .* 401 .* FAIL: expected 404, got 401 Unauthenticated \(the key was refused\)\n/,
      );
      expect(result.stdout).toMatch(/\n3 passed, \d+ failed\n$/);
      expect(ownLines(result.stderr)).toEqual([
        expect.stringMatching(
          /^cxm: http:\/\/127\.0\.0\.1:\d+ refused the key on every check \(401 Unauthenticated\).*npx cxm keys create .*--tenant acme --scope cxm:conversations\.write/,
        ),
      ]);
    },
  );

  it('--stage: the URL from the stack, a temporary key with a usage-plan key, every check passes, then both keys are gone', async () => {
    const tenant = uniqueTenant('cxm-smoke-stage');
    const result = await smoke(stageEnv, ['--stage', stage, '--tenant', tenant]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Smoke test of ${proxy.url}/ as tenant ${tenant}\n`));
    expect(result.stdout).toMatch(/add internal note .* 201 .* pass\n/);
    expect(result.stdout).toMatch(/VOC job status .* 200 .* pass\n/);
    // Each recording says which analysis it took: the two-channel call Call Analytics, the mono one a transcription.
    expect(result.stdout).toMatch(/VOC call, two channels .* 200 .* pass: call-analytics\n/);
    expect(result.stdout).toMatch(/VOC call, mono .* 200 .* pass: transcription\n/);
    expect(result.stdout).not.toMatch(/FAIL/);
    expect(result.stdout).toMatch(/\n(\d+) passed, 0 failed\n$/);
    expect(cloudFormation.calls).toContain(stackName(stage));
    expect(apiGateway.calls).toContain(`POST /usageplans/${PLAN_ID}/keys`);
    expect(ownLines(result.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Created the temporary key \\w+ for tenant ${tenant}, throttled through its tenant's API Gateway key \\w+, expiring at `,
        ),
      ),
      expect.stringMatching(/^Revoked the temporary key/),
    ]);
    await expectTemporaryKeyRevoked(tenant, result.stderr);
  });

  cliOnly(
    "--stage, for a tenant with another active key: the temporary key is throttled through the tenant's key, which stays when it is revoked",
    async () => {
      const tenant = uniqueTenant('cxm-smoke-shared');
      // A key of the tenant made as an operator makes one, with the tenant's usage key.
      const created = await cxm(
        ['keys', 'create', '--stage', stage, '--tenant', tenant, '--scope', 'cxm:*', '--json'],
        stageEnv,
      );
      expect(created.code, created.stderr).toBe(0);
      const other = (JSON.parse(created.stdout) as { id: string }).id;
      const [[usageKeyId, usageKey]] = tenantUsageKeys(tenant) as [[string, unknown]];

      const result = await smoke(stageEnv, ['--stage', stage, '--tenant', tenant]);
      expect(result.code).toBe(0);
      expect(createdUsageKeyId(tenant, result.stderr)).toBe(usageKeyId);
      const temporary = (await api.keys.list(tenant)).find((key) => key.keyId !== other);
      expect(temporary).toMatchObject({ name: 'cxm smoke', revokedAt: expect.any(String) });
      expect(ownLines(result.stderr).at(-1)).toBe(`Revoked the temporary key ${temporary!.keyId}.`);
      // Still there, unchanged, in the plan: the operator's key keeps working through it.
      expect(apiGateway.calls).not.toContain(`DELETE /apikeys/${usageKeyId}`);
      expect(tenantUsageKeys(tenant)).toEqual([[usageKeyId, usageKey]]);
      expect(usageKey).toMatchObject({
        value: tenantUsageKeyValue(stage, tenant),
        enabled: true,
        usagePlanId: PLAN_ID,
      });
    },
  );

  cliOnly(
    '--stage: a check that fails fails the run (exit 1, the reason in --json), and the temporary key is revoked all the same',
    async () => {
      const tenant = uniqueTenant('cxm-smoke-fail');
      // A reporting row without its fields: the response is off the OpenAPI document.
      proxy.answer(`/reporting/tenants/${tenant}/assistant/`, 200, {
        total: 1,
        cursor: {},
        data: [{ ID: 'half-a-row' }],
      });
      const result = await smoke(stageEnv, ['--stage', stage, '--tenant', tenant, '--json']);
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout) as Report;
      expect(report.failed).toBe(1);
      expect(report.checks.filter((check) => check.result === 'fail')).toEqual([
        expect.objectContaining({
          route: 'listAssistantConversations',
          status: 200,
          reason: expect.stringMatching(/^off the OpenAPI document: .*must have required property/),
        }),
      ]);
      expect(ownLines(result.stderr).at(-1)).toMatch(
        new RegExp(`^cxm: 1 of ${report.checks.length} checks failed against ${proxy.url}/$`),
      );
      await expectTemporaryKeyRevoked(tenant, result.stderr);
    },
  );

  cliOnly('--stage refuses a tenant that is not a smoke tenant: its rows would show in a real tenant', async () => {
    const result = await smoke(stageEnv, ['--stage', stage, '--tenant', 'acme']);
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual([
      expect.stringMatching(
        /^cxm: --tenant 'acme': .*must be a smoke tenant whose id starts with 'cxm-smoke'; to check a real tenant, use --url/,
      ),
    ]);
    expect(await api.keys.list('acme')).toEqual([]);
  });

  cliOnly(
    '--stage: Ctrl-C during the checks revokes the temporary key and deletes its usage-plan key before exiting (the bin, as a process: signals)',
    async () => {
      const tenant = uniqueTenant('cxm-smoke-int');
      const arrived = proxy.hold(`/reporting/tenants/${tenant}/`);
      let child: ChildProcess | undefined;
      const finished = smokeProcess(stageEnv, ['--stage', stage, '--tenant', tenant], (spawned) => (child = spawned));
      await arrived;
      // Mid-run the key exists, unrevoked, and its tenant's API Gateway key (its name, its derived
      // value) is in the stage's plan.
      const [during] = await api.keys.list(tenant);
      expect(during).toMatchObject({ name: 'cxm smoke', revokedAt: undefined });
      expect(tenantUsageKeys(tenant).map(([, key]) => key)).toEqual([
        {
          name: tenantUsageKeyName(stage, tenant),
          value: tenantUsageKeyValue(stage, tenant),
          enabled: true,
          usagePlanId: PLAN_ID,
          tags: { project: 'cxm-api', stage, tenant },
        },
      ]);
      const [[duringId]] = tenantUsageKeys(tenant) as [[string, unknown]];
      child!.kill('SIGINT');
      const result = await finished;
      expect(result.code).toBe(130);
      expect(result.stderr).toMatch(/Interrupted: revoking the temporary key/);
      expect(createdUsageKeyId(tenant, result.stderr)).toBe(duringId);
      await expectTemporaryKeyRevoked(tenant, result.stderr);
    },
  );
});
