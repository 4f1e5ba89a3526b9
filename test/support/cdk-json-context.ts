/** What `cdk synth` reads from cdk.json, for the stacks the tests build and synthesize. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';

/** cdk.json's context: the feature flags `cdk synth` runs with, so a stack a test builds is the deployed one. */
export const CDK_JSON_CONTEXT: Readonly<Record<string, unknown>> = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;
