/**
 * The functions' bundles from one esbuild run: the bundling settings mapped to esbuild's options
 * (none dropped, a route's additions included), and in a synthesis, each function's asset its own entry's bundle, also beside a
 * function whose entry sits in the same folder (CDK caches staged assets by their bundling options),
 * with the compile cache its stage's target says (test/infra/bundles.test.ts reads the caches).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { LAMBDA_BUNDLING, LAMBDA_RUNTIME } from '#infra/cdk/constructs/api-function';
import {
  BUNDLE_MODULE,
  COMPILE_CACHE,
  COMPILE_CACHE_DESCRIPTION,
  compileCacheTarget,
  ENTRY_MODULE,
} from '#infra/cdk/constructs/compile-cache';
import { bundledCode, esbuildOptions } from '#infra/cdk/constructs/function-bundles';
import { MCP_SDK_SHIMS_ALIAS, routeBundling, WEB_FETCH_CLASSES_MODULE } from '#infra/cdk/constructs/route-bundling';
import { routeById } from '#shared/api/route-table';
import { WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';

const outdir = mkdtempSync(join(tmpdir(), 'cxm-function-bundles-test-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('esbuildOptions', () => {
  it('maps every bundling setting as aws-lambda-nodejs does, for the runtime Node', () => {
    expect(esbuildOptions(LAMBDA_BUNDLING, LAMBDA_RUNTIME)).toEqual({
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      minify: true,
      sourcemap: false,
      keepNames: true,
      external: [],
      mainFields: ['module', 'main'],
      banner: undefined,
      logLevel: 'warning',
      define: undefined,
      inject: undefined,
      alias: undefined,
      supported: { 'dynamic-import': false },
    });
  });

  it("maps a route's additions: a list's backend compiled in, MCP's own fetch classes and SDK shims", () => {
    const options = (id: Parameters<typeof routeById>[0]) =>
      esbuildOptions({ ...LAMBDA_BUNDLING, ...routeBundling(routeById(id), 'opensearch') }, LAMBDA_RUNTIME);
    expect(options('listAssistantConversations')).toMatchObject({
      define: { 'process.env.CXM_REPORTING_BACKEND': '"opensearch"' },
      inject: undefined,
    });
    expect(options('mcpBots')).toMatchObject({
      define: undefined,
      inject: [WEB_FETCH_CLASSES_MODULE],
      alias: MCP_SDK_SHIMS_ALIAS,
    });
    expect(routeBundling(routeById('getCurrentDocument'), 'opensearch')).toBeUndefined();
  });

  it('refuses a setting it does not map, naming it', () => {
    expect(() =>
      esbuildOptions({ ...LAMBDA_BUNDLING, nodeModules: ['sharp'] } as typeof LAMBDA_BUNDLING, LAMBDA_RUNTIME),
    ).toThrow(/nodeModules/);
  });
});

describe('bundledCode, in a synthesis', () => {
  const ENTRIES = ['functions/webhooks/create-webhook-endpoint.ts', 'functions/webhooks/delete-webhook-endpoint.ts'];
  const app = new App({ ...WITHOUT_BUILTIN_VALIDATION, outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Bundles');
  for (const [index, entry] of ENTRIES.entries())
    new LambdaFunction(stack, `Fn${index}`, {
      runtime: LAMBDA_RUNTIME,
      handler: 'index.handler',
      code: bundledCode(entry, LAMBDA_BUNDLING, LAMBDA_RUNTIME, compileCacheTarget('dev', 'x64')),
    });
  // The same function where no cache can be made: its asset has the entry and the bundle only.
  new LambdaFunction(stack, 'Uncached', {
    runtime: LAMBDA_RUNTIME,
    handler: 'index.handler',
    code: bundledCode(ENTRIES[0]!, LAMBDA_BUNDLING, LAMBDA_RUNTIME, { without: 'a test' }),
  });
  const template = Template.fromStack(stack).toJSON() as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
  };
  const assetOf = (logicalIdPrefix: string) => {
    const [, resource] = Object.entries(template.Resources).find(
      ([id, candidate]) => id.startsWith(logicalIdPrefix) && candidate.Type === 'AWS::Lambda::Function',
    )!;
    return join(outdir, resource.Metadata!['aws:asset:path']!);
  };

  it("gives each function its own entry's bundle, also beside another of the same folder", () => {
    const [first, second] = [assetOf('Fn0'), assetOf('Fn1')];
    expect(first).not.toBe(second);
    for (const asset of [first, second])
      expect(readdirSync(asset).sort()).toEqual([
        COMPILE_CACHE,
        BUNDLE_MODULE,
        COMPILE_CACHE_DESCRIPTION,
        ENTRY_MODULE,
      ]);
    // Two different bundles, each with its own handler's validator (keepNames keeps its name).
    const [firstText, secondText] = [first, second].map((asset) => readFileSync(join(asset, BUNDLE_MODULE), 'utf8'));
    expect(firstText).not.toBe(secondText);
    expect(firstText).toMatch(/\bcreateWebhookEndpoint\b/);
    expect(secondText).toMatch(/\bdeleteWebhookEndpoint\b/);
  });

  it("keeps the asset's hash to the entry, the bundle and whom the cache is for", () => {
    const uncached = assetOf('Uncached');
    expect(readdirSync(uncached).sort()).toEqual([BUNDLE_MODULE, ENTRY_MODULE]);
    expect(uncached).not.toBe(assetOf('Fn0'));
  });

  it('refuses an entry that is no module under functions/', () => {
    expect(() =>
      bundledCode('shared/api/route-table.ts', LAMBDA_BUNDLING, LAMBDA_RUNTIME, { without: 'a test' }).bind(
        new Stack(app, 'Other'),
      ),
    ).toThrow(/no module under functions\//);
  });
});

describe('compileCacheTarget', () => {
  it("makes a deployed stage's cache only on the functions' platform", () => {
    expect(compileCacheTarget('prod', 'x64')).toMatchObject({ version: 'v24.21.0' });
    expect(compileCacheTarget('prod', 'arm64')).toEqual({
      without: expect.stringMatching(/functions run on linux-arm64 and this machine is linux-x64/),
    });
    // The local stage runs on this machine.
    expect(compileCacheTarget('local', 'arm64')).toMatchObject({ version: 'v24.21.0' });
  });
});
