/**
 * Every Lambda bundle CDK builds must load in a fresh Node process with only the environment its
 * function gets in the template. This catches what type checks and unit tests cannot: an ESM bundle
 * that dies at import ("Dynamic require of node:https is not supported" without the createRequire
 * banner), a module left external that Lambda does not have, and a handler reading a table env var
 * its function is not bound to (the handlers read table names at import and throw when missing).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import type { CloudFormationStackArtifact } from 'aws-cdk-lib/cx-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageConfig } from '#infra/cdk/config';
import { ESM_REQUIRE_BANNER } from '#infra/cdk/constructs/api-function';
import { CxmStack } from '#infra/cdk/stack';
import { lambdaNode } from '#infra/local/lambda-node';

interface LambdaResource {
  Type: string;
  Properties: { FunctionName?: string; Environment?: { Variables: Record<string, unknown> } };
  Metadata?: Record<string, unknown>;
}

interface Bundle {
  functionName: string;
  file: string;
  environment: Record<string, string>;
}

const run = promisify(execFile);
/** The name of the OpenSearch client's error (shared/store/opensearch-client.ts), a string in any bundle that carries the client. */
const OPENSEARCH_CLIENT_MARK = 'OpenSearchResponseError';
const config = stageConfig('dev');

let outdir: string;
let bundles: Bundle[];

beforeAll(() => {
  // Outside the project tree, so a module left external cannot be found in our node_modules.
  outdir = mkdtempSync(join(tmpdir(), 'cxm-bundles-test-'));
  const cdkJsonFile = new URL('../../cdk.json', import.meta.url);
  const cdkJson = JSON.parse(readFileSync(cdkJsonFile, 'utf8')) as { context: Record<string, unknown> };
  const app = new App({
    outdir,
    // Asset metadata ties each function to its asset directory (the CLI sets this too).
    context: { ...cdkJson.context, stage: config.stage, 'aws:cdk:enable-asset-metadata': true },
  });
  const stack = new CxmStack(app, { config });
  const artifact = app.synth().getStackArtifact(stack.artifactId);
  bundles = lambdaBundles(artifact);
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

function lambdaBundles(artifact: CloudFormationStackArtifact): Bundle[] {
  const resources = (artifact.template as { Resources: Record<string, LambdaResource> }).Resources;
  return (
    Object.values(resources)
      // Ours are named cxm-<stage>-*; CDK's own helpers (the domain's log-policy resource) are not.
      .filter((resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.FunctionName?.startsWith('cxm-'))
      .map((fn) => {
        const assetPath = fn.Metadata?.['aws:asset:path'];
        if (typeof assetPath !== 'string') throw new Error(`${fn.Properties.FunctionName} has no asset path`);
        const variables = fn.Properties.Environment?.Variables ?? {};
        return {
          functionName: fn.Properties.FunctionName!,
          file: join(artifact.assembly.directory, assetPath, 'index.mjs'),
          environment: Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, resolveValue(value, resources)])),
        };
      })
  );
}

/**
 * A literal stays; `{Ref: Table}` becomes that table's physical name, and `{Ref: Secret}` an ARN
 * of that secret's name, as Lambda would see them.
 */
function resolveValue(value: unknown, resources: Record<string, { Type?: string; Properties: Record<string, unknown> }>): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map((part) => resolveValue(part, resources)).join(join[0]);
  // An attribute known only at deploy time (the search domain's endpoint): any host will do here.
  if ((value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt']) return 'search-domain.example.com';
  const ref = (value as { Ref?: unknown }).Ref;
  const pseudo: Record<string, string> = { 'AWS::AccountId': '000000000000', 'AWS::Region': 'us-east-1', 'AWS::Partition': 'aws', 'AWS::URLSuffix': 'amazonaws.com' };
  if (typeof ref === 'string' && pseudo[ref]) return pseudo[ref];
  const resource = typeof ref === 'string' ? resources[ref] : undefined;
  // A bucket's Ref is its name, which the template gives (the recordings bucket).
  if (resource?.Type === 'AWS::S3::Bucket') return resolveValue(resource.Properties.BucketName, resources);
  const name = resource?.Type === 'AWS::SecretsManager::Secret' ? resource.Properties.Name : resource?.Properties.TableName;
  if (typeof name !== 'string') throw new Error(`cannot resolve env value ${JSON.stringify(value)}`);
  return resource?.Type === 'AWS::SecretsManager::Secret' ? `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-AbCdEf` : name;
}

/** Imports a bundle in a new Lambda Node with exactly `environment` (plus a region and PATH). */
async function importBundle(file: string, environment: Record<string, string>) {
  const script = `const m = await import(process.argv[1]);
if (typeof m.handler !== 'function') { console.error('no handler export'); process.exit(3); }`;
  // On the Node Lambda runs (the bundles target it), not this machine's.
  return run(lambdaNode().execPath, ['--input-type=module', '-e', script, pathToFileURL(file).href], {
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', ...environment },
    timeout: 30_000,
  });
}

describe('built bundles', () => {
  it('one ESM bundle per function, with the createRequire banner', () => {
    expect(bundles.length).toBeGreaterThanOrEqual(2);
    for (const bundle of bundles) {
      expect(existsSync(bundle.file), bundle.file).toBe(true);
      expect(readFileSync(bundle.file, 'utf8').startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    }
  });

  it('each imports in a fresh node with only its own environment', async () => {
    for (const bundle of bundles) {
      await expect(importBundle(bundle.file, bundle.environment), bundle.functionName).resolves.toBeDefined();
    }
  });

  it("a reporting list is built for its stage's backend: this stage has a search domain, so its lists carry the OpenSearch client", () => {
    // test/integration/bundle-wiring.test.ts checks the other side on the local (DynamoDB) stage.
    const lists = bundles.filter((bundle) => bundle.environment.CXM_REPORTING_BACKEND !== undefined);
    expect(lists.map((bundle) => bundle.functionName).sort()).toEqual([`cxm-${config.stage}-listAssistantConversations`, `cxm-${config.stage}-listVocConversations`]);
    for (const list of lists) {
      expect(list.environment.CXM_REPORTING_BACKEND).toBe('opensearch');
      expect(readFileSync(list.file, 'utf8')).toContain(OPENSEARCH_CLIENT_MARK);
    }
  });

  it('a bundle without its table variable fails at import (the check above can fail)', async () => {
    const bundle = bundles.find((b) => Object.keys(b.environment).some((name) => name.startsWith('CXM_TABLE_')))!;
    const environment = Object.fromEntries(Object.entries(bundle.environment).filter(([name]) => !name.startsWith('CXM_TABLE_')));
    await expect(importBundle(bundle.file, environment)).rejects.toThrow(/CXM_TABLE_/);
  });
});
