/**
 * Bundle mode serves what the template wires, so a wiring mistake in CDK fails here instead of in
 * the cloud. Each case edits a copy of the run's synthesized template the way a CDK slip would (a
 * function loses an environment variable, a method loses its integration, a variable points at
 * something nothing local stands in for) and serves it: the mistake must show, with the function's
 * name. Runs in the bundles project only (test/vitest.config.ts).
 *
 * @group bundles
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUNDLE_MODULE } from '#infra/cdk/constructs/compile-cache';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { readStackAssembly, type Template } from '#infra/local/runtime/read-assembly';
import { type BoundGateway, bindGateway } from '#infra/local/serve-gateway';
import { LOCAL_STAGE, stackName } from '#infra/stage-names';
import { callApi, notePath } from '#test/support/call-api';
import { directStores } from '#test/support/serve-gateway-over';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const assemblyDir = inject('assemblyDir');
const templateFile = `${stackName(LOCAL_STAGE)}.template.json`;
const tenant = uniqueTenant('wiring');
const copies: string[] = [];
let direct: ReturnType<typeof directStores>;
let key: string;

beforeAll(async () => {
  const store = workerDynamo();
  pointAtLocalDynamo(store, store.tables);
  direct = directStores(store, store.tables);
  ({ key } = await direct.createKey([tenant], ['cxm:*', 'voc:*']));
  await direct.addConversation(tenant, 'open');
});

afterAll(() => {
  direct?.destroy();
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/** A copy of the run's assembly (bundles linked, not copied) whose template `edit` changed. */
function assemblyWith(edit: (template: Template, dir: string) => void): string {
  const copy = mkdtempSync(join(tmpdir(), 'cxm-wiring-'));
  copies.push(copy);
  for (const name of readdirSync(assemblyDir)) {
    if (name !== templateFile) symlinkSync(join(assemblyDir, name), join(copy, name));
  }
  const template = JSON.parse(readFileSync(join(assemblyDir, templateFile), 'utf8')) as Template;
  edit(template, copy);
  writeFileSync(join(copy, templateFile), JSON.stringify(template));
  return copy;
}

function functionResource(template: Template, name: string) {
  const found = Object.values(template.Resources).find(
    (resource) =>
      resource.Type === 'AWS::Lambda::Function' && resource.Properties?.FunctionName === `cxm-${LOCAL_STAGE}-${name}`,
  );
  if (!found) throw new Error(`no function ${name} in the template`);
  return found;
}

function functionNamed(template: Template, name: string) {
  return functionResource(template, name).Properties as { Environment: { Variables: Record<string, unknown> } };
}

/** A gateway serving `assembly`, with the faults it reports. */
async function serve(assembly: string): Promise<{ gateway: BoundGateway; faults: string[] }> {
  const faults: string[] = [];
  const saved = process.env.CXM_ASSEMBLY_DIR;
  process.env.CXM_ASSEMBLY_DIR = assembly;
  const gateway = await bindGateway(0);
  try {
    await gateway.serve({ authCacheTtlSeconds: 0, onFault: (error) => faults.push(String(error)) });
    return { gateway, faults };
  } catch (error) {
    await gateway.close();
    throw error;
  } finally {
    process.env.CXM_ASSEMBLY_DIR = saved;
  }
}

const jobPath = (jobId: string) => `/api/v1/voc/tenants/${tenant}/recording/${jobId}/status`;

describe('one bundle per reporting backend', () => {
  it("the local stage reads reporting rows from DynamoDB, so its lists' bundles leave the OpenSearch client out", () => {
    // test/infra/bundles.test.ts checks that a stage with a search domain gets it.
    const { functions } = readStackAssembly(assemblyDir, stackName(LOCAL_STAGE));
    const lists = [...functions.values()].filter((fn) => fn.environment.CXM_REPORTING_BACKEND !== undefined);
    expect(lists).toHaveLength(2);
    for (const list of lists) {
      expect(list.environment.CXM_REPORTING_BACKEND).toBe('dynamodb');
      // The name of the OpenSearch client's error: a string in every bundle that carries the client.
      expect(readFileSync(join(list.codeDir, BUNDLE_MODULE), 'utf8')).not.toContain('OpenSearchResponseError');
    }
  });
});

describe('a wiring mistake in the template', () => {
  it('a function without its table variable fails at init: 502, and the fault names the function and the variable', async () => {
    const { gateway, faults } = await serve(
      assemblyWith((template) => {
        delete functionNamed(template, 'addInternalNote').Environment.Variables.CXM_TABLE_CONVERSATIONS;
      }),
    );
    try {
      const response = await callApi(gateway.url, 'POST', notePath(tenant, 'open'), key, { body: 'never stored' });
      expect(response.status).toBe(502);
      expect(response.json).toEqual({ code: 'BadGateway', message: expect.any(String) });
      expect(faults.join('\n')).toMatch(
        /cxm-local-addInternalNote: init failed after \d+ ms: .*CXM_TABLE_CONVERSATIONS/,
      );
      // Only that function is broken.
      expect((await callApi(gateway.url, 'GET', jobPath('no-such-job'), key)).status).toBe(404);
      expect(await direct.conversations.listNotes(tenant, 'open')).toEqual([]);
    } finally {
      await gateway.close();
    }
  });

  it('a method the template lost is not served: 404 NotFound, as API Gateway answers', async () => {
    const { gateway } = await serve(
      assemblyWith((template) => {
        for (const [id, resource] of Object.entries(template.Resources)) {
          if (resource.Type === 'AWS::ApiGateway::Method' && resource.Properties?.OperationName === 'getVocJobStatus')
            delete template.Resources[id];
        }
      }),
    );
    try {
      const response = await callApi(gateway.url, 'GET', jobPath('job-1'), key);
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ code: 'NotFound', message: expect.any(String) });
      expect((await callApi(gateway.url, 'POST', notePath(tenant, 'open'), key, { body: 'still served' })).status).toBe(
        201,
      );
    } finally {
      await gateway.close();
    }
  });

  it('a bundle that left a module external fails at init, as in Lambda: nothing above the task root resolves it', async () => {
    const { gateway, faults } = await serve(
      assemblyWith((template, dir) => {
        mkdirSync(join(dir, 'asset.external'));
        writeFileSync(
          join(dir, 'asset.external', 'index.mjs'),
          "import { ulid } from 'ulid';\nexport const handler = async () => ({ statusCode: 200, body: ulid() });\n",
        );
        functionResource(template, 'getVocJobStatus').Metadata!['aws:asset:path'] = 'asset.external';
      }),
    );
    try {
      expect((await callApi(gateway.url, 'GET', jobPath('job-1'), key)).status).toBe(502);
      expect(faults.join('\n')).toMatch(
        /cxm-local-getVocJobStatus: init failed after \d+ ms: .*Cannot find package 'ulid'/,
      );
    } finally {
      await gateway.close();
    }
  });

  it('a variable that refers to something with no local stand-in stops the gateway from starting, naming both', async () => {
    const broken = assemblyWith((template) => {
      functionNamed(template, 'getVocJobStatus').Environment.Variables.CXM_TOPIC = {
        'Fn::GetAtt': ['NoSuchResource', 'TopicName'],
      };
    });
    await expect(serve(broken)).rejects.toThrow(
      /cxm-local-getVocJobStatus: environment variable CXM_TOPIC = .*nothing to stand in/,
    );
  });
});
