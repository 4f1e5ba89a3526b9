/** What `cdk synth` reads from cdk.json, for the stacks the tests build and synthesize. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';

/** cdk.json's context: the feature flags `cdk synth` runs with, so a stack a test builds is the deployed one. */
export const CDK_JSON_CONTEXT: Readonly<Record<string, unknown>> = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

/**
 * What every App a test builds takes besides its context: CDK's built-in CloudFormation validation
 * off, as bundling is. Its engine (AWS's validator, 9 MB of WebAssembly) cost each test process that
 * synthesized 3-7 CPU-s to start, and each template 0.3-2 s more: about 30 CPU-s of a run, for the
 * same rules on the same few templates. test/infra/cloudformation-validate.test.ts runs that plugin
 * once over every kind of stage, and `cdk synth` keeps it.
 *
 * @example new App({ ...WITHOUT_BUILTIN_VALIDATION, context: { ...CDK_JSON_CONTEXT, stage: 'lite' } })
 */
export const WITHOUT_BUILTIN_VALIDATION = { builtinCloudFormationValidation: false } as const;
