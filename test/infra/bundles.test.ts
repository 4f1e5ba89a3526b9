/**
 * Every Lambda bundle CDK builds must load in a fresh Node process with only the environment its
 * function gets in the template. This catches what type checks and unit tests cannot: an ESM bundle
 * that dies at import ("Dynamic require of node:https is not supported" without the createRequire
 * banner), a module left external that Lambda does not have, and a handler reading a table env var
 * its function is not bound to (the handlers read table names at import and throw when missing).
 * The bundles are the run's synthesis of the local stage (the bundles project's, test/vitest.config.ts),
 * and one list of a stage with a search domain, built here.
 *
 * @group bundles
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ApiFunction, LAMBDA_BUNDLING, LAMBDA_RUNTIME } from '#infra/cdk/constructs/api-function';
import {
  BUNDLE_MODULE,
  COMPILE_CACHE,
  COMPILE_CACHE_DESCRIPTION,
  type CompileCacheDescription,
  ENTRY_MODULE,
} from '#infra/cdk/constructs/compile-cache';
import { esbuildOptions } from '#infra/cdk/constructs/function-bundles';
import { routeBundling } from '#infra/cdk/constructs/route-bundling';
import { warmUpEvent } from '#infra/cdk/constructs/warm-up-requests';
import { stageConfig } from '#infra/cdk/stage/config';
import { LAMBDA_NODE_OPTIONS, lambdaNode, pinnedLambdaNodeVersion } from '#infra/lambda-node';
import { readStackAssembly } from '#infra/local/runtime/read-assembly';
import { PROJECT_ROOT } from '#infra/project-root';
import { LOCAL_STAGE, SEALING_KEY_RESOURCE_TYPE, stackName } from '#infra/stage-names';
import { routeById, routes } from '#shared/api/route-table';
import { sealingPublicKeyText } from '#shared/domain/webhooks/sealed-secret';
import { WEBHOOK_FAN_OUT } from '#shared/webhook-functions';
import { CDK_JSON_CONTEXT, WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';

interface LambdaResource {
  Type: string;
  Properties: { FunctionName?: string; Environment?: { Variables: Record<string, unknown> } };
  Metadata?: Record<string, unknown>;
}

interface Bundle {
  functionName: string;
  /** The asset folder: Lambda's task root. */
  asset: string;
  /** The entry Lambda loads (`index.cjs`), which loads the bundle. */
  file: string;
  environment: Record<string, string>;
}

const run = promisify(execFile);
/** The name of the OpenSearch client's error (shared/store/opensearch-client.ts), a string in any bundle that carries the client. */
const OPENSEARCH_CLIENT_MARK = 'OpenSearchResponseError';
/** DynamoDB's API version, as its client's requests name it: a string in any bundle that carries the client. */
const DYNAMODB_CLIENT_MARK = 'DynamoDB_20120810';
/** A sentence of Ajv's own (its core's refusal of an unknown format), in any bundle that carries Ajv. */
const AJV_MARK = 'Disable strict mode or pass';
/** Node's fetch classes, as `process.moduleLoadList` names them once a first `Headers`, `Request` or `Response` loaded them. */
const NODE_FETCH_MODULE = 'NativeModule internal/deps/undici/undici';
/** The run's synthesis of the local stage (global-setup.ts): outside the project tree, as a deployed bundle is. */
const assemblyDir = inject('assemblyDir');

let bundles: Bundle[];

beforeAll(() => {
  const { template } = readStackAssembly(assemblyDir, stackName(LOCAL_STAGE));
  bundles = lambdaBundles(template.Resources as unknown as Record<string, LambdaResource>, assemblyDir);
});

function lambdaBundles(resources: Record<string, LambdaResource>, dir: string): Bundle[] {
  return (
    Object.values(resources)
      // Ours are named cxm-<stage>-*; CDK's own helpers are not.
      .filter(
        (resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.FunctionName?.startsWith('cxm-'),
      )
      .map((fn) => {
        const assetPath = fn.Metadata?.['aws:asset:path'];
        if (typeof assetPath !== 'string') throw new Error(`${fn.Properties.FunctionName} has no asset path`);
        const variables = fn.Properties.Environment?.Variables ?? {};
        return {
          functionName: fn.Properties.FunctionName!,
          asset: join(dir, assetPath),
          file: join(dir, assetPath, ENTRY_MODULE),
          environment: Object.fromEntries(
            Object.entries(variables).map(([name, value]) => [name, resolveValue(value, resources as never)]),
          ),
        };
      })
  );
}

/**
 * A literal stays; `{Ref: Table}` becomes that table's physical name, `{Ref: Secret}` an ARN of
 * that secret's name, `{Ref: Queue}` a URL of that queue's name, and `{Ref: RestApi}` an id, as
 * Lambda would see them.
 */
function resolveValue(
  value: unknown,
  resources: Record<string, { Type?: string; Properties: Record<string, unknown> }>,
): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map((part) => resolveValue(part, resources)).join(join[0]);
  // An attribute known only at deploy time: the sealing key resource's answer is a public key (any
  // will do here), the search domain's endpoint any host.
  const getAtt = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
  if (getAtt && resources[getAtt[0]]?.Type === SEALING_KEY_RESOURCE_TYPE)
    return sealingPublicKeyText('bundles-test-webhook-secret-key-0123456789');
  if (getAtt) return 'search-domain.example.com';
  const ref = (value as { Ref?: unknown }).Ref;
  const pseudo: Record<string, string> = {
    'AWS::AccountId': '000000000000',
    'AWS::Region': 'us-east-1',
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
  };
  if (typeof ref === 'string' && pseudo[ref]) return pseudo[ref];
  const resource = typeof ref === 'string' ? resources[ref] : undefined;
  // A bucket's Ref is its name, which the template gives (the recordings bucket).
  if (resource?.Type === 'AWS::S3::Bucket') return resolveValue(resource.Properties.BucketName, resources);
  // A REST API's Ref is its id (the API's own host, which no webhook may target).
  if (resource?.Type === 'AWS::ApiGateway::RestApi') return 'abc123defg';
  // A queue's Ref is its URL (the webhook delivery queue).
  if (resource?.Type === 'AWS::SQS::Queue')
    return `https://sqs.us-east-1.amazonaws.com/000000000000/${resolveValue(resource.Properties.QueueName, resources)}`;
  const name =
    resource?.Type === 'AWS::SecretsManager::Secret' ? resource.Properties.Name : resource?.Properties.TableName;
  if (typeof name !== 'string') throw new Error(`cannot resolve env value ${JSON.stringify(value)}`);
  return resource?.Type === 'AWS::SecretsManager::Secret'
    ? `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-AbCdEf`
    : name;
}

/**
 * Imports a function's entry in a new Lambda Node, with Lambda's options and exactly `environment`
 * (plus a region and PATH), and returns what its init line says of the compile cache.
 */
async function importBundle(
  file: string,
  environment: Record<string, string>,
  options: readonly string[] = LAMBDA_NODE_OPTIONS,
): Promise<CompileCacheState> {
  const script = `const m = await import(process.argv[1]);
if (typeof m.handler !== 'function') { console.error('no handler export'); process.exit(3); }`;
  // On the Node Lambda runs (the bundles target it), not this machine's.
  const { stdout } = await run(
    lambdaNode().execPath,
    [...options, '--input-type=module', '-e', script, pathToFileURL(file).href],
    // The local stage logs warnings only; the init line of an accepted cache is an INFO line.
    {
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', ...environment, POWERTOOLS_LOG_LEVEL: 'INFO' },
      timeout: 30_000,
    },
  );
  const init = stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { message?: string; compileCache?: CompileCacheState })
    .find((line) => line.message === 'init');
  if (!init?.compileCache) throw new Error(`${file} wrote no init line: ${stdout.slice(0, 200)}`);
  return init.compileCache;
}

interface CompileCacheState {
  state: 'accepted' | 'rejected' | 'absent';
  made?: string;
  runtime?: string;
}

describe('built bundles', () => {
  it("the local runtime reads each stream mapping's batch size and parallelization from the template", () => {
    const { mappings, functions } = readStackAssembly(assemblyDir, stackName(LOCAL_STAGE));
    const fanOut = mappings.filter(
      (mapping) => functions.get(mapping.functionId)?.functionName === `cxm-${LOCAL_STAGE}-${WEBHOOK_FAN_OUT.id}`,
    );
    expect(fanOut.length).toBeGreaterThan(0);
    for (const mapping of fanOut)
      expect(mapping).toMatchObject({
        batchSize: WEBHOOK_FAN_OUT.mapping.batchSize,
        parallelization: WEBHOOK_FAN_OUT.mapping.parallelizationFactor,
      });
  });

  it('one CommonJS bundle per function, behind the entry every asset shares', () => {
    expect(bundles.length).toBeGreaterThanOrEqual(2);
    const entry = readFileSync(new URL('../../infra/cdk/constructs/function-entry.cjs', import.meta.url), 'utf8');
    for (const bundle of bundles) {
      expect(readFileSync(bundle.file, 'utf8'), bundle.functionName).toBe(entry);
      expect(existsSync(join(bundle.asset, BUNDLE_MODULE)), bundle.functionName).toBe(true);
    }
  });

  it("each asset carries a compile cache made by the stage's pinned Node with Lambda's options", () => {
    for (const bundle of bundles) {
      const description = JSON.parse(
        readFileSync(join(bundle.asset, COMPILE_CACHE_DESCRIPTION), 'utf8'),
      ) as CompileCacheDescription;
      expect(description, bundle.functionName).toEqual({
        node: `v${pinnedLambdaNodeVersion()}`,
        options: LAMBDA_NODE_OPTIONS,
      });
      expect(statSync(join(bundle.asset, COMPILE_CACHE)).size, bundle.functionName).toBeGreaterThan(10_000);
    }
  });

  it('each imports in a fresh node with only its own environment, and V8 takes its compile cache', async () => {
    // Two at a time: each is a process of its own.
    const queue = [...bundles];
    const next = async (): Promise<void> => {
      const bundle = queue.shift();
      if (!bundle) return;
      await expect(importBundle(bundle.file, bundle.environment), bundle.functionName).resolves.toEqual({
        state: 'accepted',
      });
      await next();
    };
    await Promise.all([next(), next()]);
  });

  it("an asset's cache run under other V8 flags, or none, is said in its init line (the checks above can fail)", async () => {
    const bundle = bundles[0]!;
    const withoutGc = LAMBDA_NODE_OPTIONS.filter((option) => option !== '--expose-gc');
    const rejected = await importBundle(bundle.file, bundle.environment, withoutGc);
    expect(rejected).toMatchObject({
      state: 'rejected',
      made: [`v${pinnedLambdaNodeVersion()}`, ...LAMBDA_NODE_OPTIONS].join(' '),
    });
    // This process's version and options (here also the probe's own `-e`).
    expect(rejected.runtime?.startsWith([`v${pinnedLambdaNodeVersion()}`, ...withoutGc].join(' '))).toBe(true);
    const copy = mkdtempSync(join(tmpdir(), 'cxm-cache-asset-'));
    try {
      cpSync(bundle.asset, copy, { recursive: true });
      rmSync(join(copy, COMPILE_CACHE));
      await expect(importBundle(join(copy, ENTRY_MODULE), bundle.environment)).resolves.toEqual({ state: 'absent' });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("each API function's warm-up request, the one its cache was made with, gets past the chain to the stores without Node's fetch", async () => {
    // Answered here with every AWS endpoint refusing connections, so a request that got past
    // authorization and validation ends in a 5xx from the store it reached. Node's
    // fetch classes (undici) are loaded by a first use, which no function's request may make: MCP's
    // bundle carries its own (route-bundling.ts).
    const script = `const { handler } = require(process.argv[1]);
const fetch = () => (process.moduleLoadList.includes(${JSON.stringify(NODE_FETCH_MODULE)}) ? "with Node's fetch" : "without");
handler(JSON.parse(process.env.WARM_UP), { getRemainingTimeInMillis: () => 5000, awsRequestId: 'warm-up', functionName: 'warm-up' })
  .then((answer) => process.stdout.write(answer.statusCode + ' ' + fetch()), () => process.stdout.write('threw'));`;
    const answers: Record<string, string> = {};
    for (const route of routes) {
      const bundle = bundles.find((candidate) => candidate.functionName === `cxm-${LOCAL_STAGE}-${route.id}`)!;
      const { stdout } = await run(lambdaNode().execPath, [...LAMBDA_NODE_OPTIONS, '-e', script, bundle.file], {
        env: {
          ...bundle.environment,
          AWS_REGION: 'eu-west-1',
          AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
          AWS_MAX_ATTEMPTS: '1',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          WARM_UP: JSON.stringify(warmUpEvent(route.handler)),
        },
        timeout: 30_000,
      });
      answers[route.id] = stdout;
    }
    expect(answers).toEqual(
      Object.fromEntries(routes.map((route) => [route.id, expect.stringMatching(/^5\d\d without$/)])),
    );
  });

  it('a bundle without its table variable fails at import (the check above can fail)', async () => {
    const bundle = bundles.find((b) => Object.keys(b.environment).some((name) => name.startsWith('CXM_TABLE_')))!;
    const environment = Object.fromEntries(
      Object.entries(bundle.environment).filter(([name]) => !name.startsWith('CXM_TABLE_')),
    );
    await expect(importBundle(bundle.file, environment)).rejects.toThrow(/CXM_TABLE_/);
  });
});

describe("a reporting list is built for its stage's backend", () => {
  // The local stage reads DynamoDB: its lists leave the OpenSearch client out (bundle-wiring.test.ts).
  // A stage with a search domain bundles its lists with the client: one list function, built by
  // the construct and the bundling the stack gives it.
  const route = routeById('listAssistantConversations');
  let outdir: string;
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('a stage with a search domain: its lists carry the OpenSearch client, and not the DynamoDB one', () => {
    const config = stageConfig('dev');
    expect(config.reportingBackend).toBe('opensearch');
    outdir = mkdtempSync(join(tmpdir(), 'cxm-bundles-test-'));
    const app = new App({
      ...WITHOUT_BUILTIN_VALIDATION,
      outdir,
      context: { ...CDK_JSON_CONTEXT, stage: config.stage, 'aws:cdk:enable-asset-metadata': true },
    });
    const stack = new Stack(app, stackName(config.stage));
    new ApiFunction(stack, `${route.id}Function`, {
      entry: route.handler,
      functionName: `cxm-${config.stage}-${route.id}`,
      config,
      bundling: routeBundling(route, config.reportingBackend),
    });
    const artifact = app.synth().getStackArtifact(stack.artifactId);
    const [list] = lambdaBundles(
      (artifact.template as { Resources: Record<string, LambdaResource> }).Resources,
      artifact.assembly.directory,
    );
    const searching = readFileSync(join(list!.asset, BUNDLE_MODULE), 'utf8');
    expect(searching).toContain(OPENSEARCH_CLIENT_MARK);
    expect(searching).not.toContain(DYNAMODB_CLIENT_MARK);
    const local = bundles.find((bundle) => bundle.functionName === `cxm-${LOCAL_STAGE}-${route.id}`)!;
    const reading = readFileSync(join(local.asset, BUNDLE_MODULE), 'utf8');
    expect(reading).not.toContain(OPENSEARCH_CLIENT_MARK);
    expect(reading).toContain(DYNAMODB_CLIENT_MARK);
    // A deployed stage's asset carries its cache too.
    expect(existsSync(join(list!.asset, COMPILE_CACHE))).toBe(true);
  });
});

describe("MCP's bundle leaves out Ajv, which the SDK's own shims would load", () => {
  // The bots server validates no client answer, so its bundle has our shims in place of the
  // SDK's (route-bundling.ts), whose default validator is an Ajv.
  it("the local stage's MCP bundle carries no Ajv; with the SDK's shims it would (the check can fail)", () => {
    const route = routeById('mcpBots');
    const mcp = bundles.find((bundle) => bundle.functionName === `cxm-${LOCAL_STAGE}-${route.id}`)!;
    expect(readFileSync(join(mcp.asset, BUNDLE_MODULE), 'utf8')).not.toContain(AJV_MARK);
    const { alias: _ours, ...withSdkShims } = routeBundling(route, stageConfig(LOCAL_STAGE).reportingBackend)!;
    const { outputFiles } = buildSync({
      ...esbuildOptions({ ...LAMBDA_BUNDLING, ...withSdkShims }, LAMBDA_RUNTIME),
      entryPoints: [route.handler],
      absWorkingDir: PROJECT_ROOT,
      write: false,
    });
    expect(outputFiles[0]!.text).toContain(AJV_MARK);
  });
});
