/**
 * `node --import tsx infra/local/synth-stage.ts <stage> <outdir>`: synthesizes one stage's stack
 * into a cloud assembly, as `cdk synth` does (cdk.json's feature flags, asset metadata recorded).
 * Its own process, because CDK bundles synchronously: the caller's event loop (a gateway answering
 * "starting", DynamoDB Local's readiness checks) keeps running meanwhile.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { stageConfig } from '../config.ts';
import { PROJECT_ROOT } from '../project-root.ts';
import { CxmStack } from '../stack.ts';

const [stage, outdir] = process.argv.slice(2);
if (!stage || !outdir) throw new Error('usage: synth-stage.ts <stage> <outdir>');
const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
const app = new App({
  outdir,
  // Asset metadata ties each function to its bundle's directory, as `cdk synth` records it.
  context: { ...cdkJson.context, stage, 'aws:cdk:enable-asset-metadata': true },
});
new CxmStack(app, { config: stageConfig(stage) });
app.synth();
