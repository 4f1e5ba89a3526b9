/**
 * The synthesized CloudFormation template of every kind of stage the stack can be, and of the
 * other stage settings the infra tests assert on, synthesized once per test run and shared by every
 * test file that reads it: the first file that needs a variant synthesizes its cloud assembly into
 * the run's folder (`inject('stageAssemblies')`, made by the global setup; made-once-per-run.ts),
 * the others read its template. With cdk.json's context (the feature flags of `cdk synth`),
 * bundling skipped (these checks read resources, not code: bundles.test.ts covers the code) and
 * CDK's built-in validation too (cloudformation-validate.test.ts runs it on these templates). A
 * test that needs the construct tree (cdk-nag) or a deliberately different setting (a refusal, a
 * region) builds its own stack.
 *
 * The four kinds (STAGE_VARIANT_NAMES) between them take every branch the stack has on its stage
 * settings: reporting on OpenSearch (one zone, several zones) or on DynamoDB, tables kept or
 * deleted on destroy, and the optional parts (each rule of the web ACL, reserved concurrency,
 * browser upload CORS, MCP origins, call summaries) on and off; the whole-template checks
 * (test/infra/cfn-lint.test.ts, test/infra/iam-reference.test.ts,
 * test/infra/cloudformation-validate.test.ts) hold each to AWS's references.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { type StageConfig, stageConfig } from '#infra/cdk/stage/config';
import { stackName } from '#infra/stage-names';
import { CDK_JSON_CONTEXT, WITHOUT_BUILTIN_VALIDATION } from './cdk-json-context.ts';
import { madeOncePerRun } from './made-once-per-run.ts';

/** One resource of a template, as CloudFormation reads it. */
export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Metadata?: Record<string, unknown>;
}

/** A synthesized template: JSON, with its resources typed enough to walk them. */
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  [section: string]: unknown;
}

/** The kinds of stage: every branch of the stack's settings, each held to AWS's references. */
export const STAGE_VARIANT_NAMES = ['lite', 'dev', 'prod', 'lite-flipped'] as const;

/**
 * How the tests name a variant: a stage of infra/cdk/stage/config.ts, `lite-flipped`, or `lite-unguarded`
 * (a setting test/infra/stack.test.ts asserts on beside the kinds; see STAGE_VARIANTS).
 */
export type StageVariantName = (typeof STAGE_VARIANT_NAMES)[number] | 'lite-unguarded';

export interface StageVariant {
  readonly name: StageVariantName;
  /** What this variant covers that the others do not. */
  readonly covers: string;
  /** The settings it is synthesized from; `config.stage` is the stage name in its resources. */
  readonly config: StageConfig;
}

export interface StageTemplate extends StageVariant {
  /** Frozen, shared by every test of the process: `structuredClone` it to edit a copy. */
  readonly template: CfnTemplate;
}

const lite = stageConfig('lite');

/** The variants, in the order tests list them: the kinds, then the other settings. */
export const STAGE_VARIANTS: readonly StageVariant[] = [
  { name: 'lite', covers: 'reporting on DynamoDB: no search domain, no indexer', config: lite },
  {
    name: 'dev',
    covers: 'reporting on a one-node, one-zone OpenSearch domain and its indexer; resources deleted on destroy',
    config: stageConfig('dev'),
  },
  {
    name: 'prod',
    covers: 'a zone-aware OpenSearch domain over 3 zones; tables and logs retained and deletion-protected',
    config: stageConfig('prod'),
  },
  {
    name: 'lite-flipped',
    covers:
      'every optional setting the other way: a web ACL of only the anonymous-IP list and the malformed-key rule (untagged keys refused: one pattern), no reserved concurrency, browser upload origins (bucket CORS), MCP origins, no call summaries (no region rule)',
    config: {
      ...lite,
      mcpAllowedOrigins: ['https://app.example.com'],
      edge: {
        ...lite.edge,
        authorizerReservedConcurrency: undefined,
        documentReservedConcurrency: undefined,
        acceptUntaggedKeys: false,
        wafRequestsPerIpPer5Minutes: undefined,
        wafIpReputationList: false,
        wafAnonymousIpList: true,
      },
      recordings: { ...lite.recordings, browserUploadOrigins: ['https://app.example.com'], callSummaries: false },
    },
  },
  {
    name: 'lite-unguarded',
    covers:
      'MCP origins written loosely (normalised in the function), a stage throttle of its own, and nothing else before the authorizer: no web ACL (every WAF setting off), no reserved concurrency (the processor neither), untagged keys refused',
    config: {
      ...lite,
      mcpAllowedOrigins: ['https://App.example.com:443', 'http://localhost:8080'],
      edge: {
        stageRateLimit: { rate: 10, burst: 20 },
        authorizerReservedConcurrency: undefined,
        documentReservedConcurrency: undefined,
        acceptUntaggedKeys: false,
        wafRequestsPerIpPer5Minutes: undefined,
        wafMalformedKeyRequestsPerIpPer5Minutes: undefined,
        wafIpReputationList: false,
        wafAnonymousIpList: false,
      },
      recordings: { ...lite.recordings, processorReservedConcurrency: undefined },
    },
  },
];

const loaded = new Map<StageVariantName, StageTemplate>();

/**
 * Loads the variants' templates into this process, each synthesized once per run (here, or awaited
 * from the test file that took it): call it in `beforeAll`, then read them with stageTemplate.
 *
 * @example
 * beforeAll(() => loadStageTemplates(['dev', 'lite']));
 */
export async function loadStageTemplates(
  names: readonly StageVariantName[] = STAGE_VARIANT_NAMES,
): Promise<StageTemplate[]> {
  const missing = names.filter((name) => !loaded.has(name));
  if (missing.length > 0) {
    const dirs = await madeOncePerRun(assembliesRoot(), missing, synthesizeVariant);
    for (const name of missing) {
      const variant = stageVariant(name);
      const template = JSON.parse(
        readFileSync(join(dirs.get(name)!, `${stackName(variant.config.stage)}.template.json`), 'utf8'),
      ) as CfnTemplate;
      loaded.set(name, { ...variant, template: deepFreeze(template) });
    }
  }
  return names.map(stageTemplate);
}

/** A variant's template, once loaded (loadStageTemplates). */
export function stageTemplate(name: StageVariantName): StageTemplate {
  const found = loaded.get(name);
  if (!found)
    throw new Error(`stage variant ${name} is not loaded: await loadStageTemplates([..., '${name}']) in beforeAll`);
  return found;
}

/** Every kind's template (STAGE_VARIANT_NAMES), once loaded. */
export function stageTemplates(): StageTemplate[] {
  return STAGE_VARIANT_NAMES.map(stageTemplate);
}

/** A variant's name, settings and what it covers, without its template. */
export function stageVariant(name: StageVariantName): StageVariant {
  const variant = STAGE_VARIANTS.find((candidate) => candidate.name === name);
  if (!variant) throw new Error(`no stage variant ${name}`);
  return variant;
}

let processRoot: string | undefined;

/** The run's folder of assemblies; outside a run with the global setup, one for this process. */
function assembliesRoot(): string {
  const provided = inject('stageAssemblies');
  if (provided) return provided;
  if (!processRoot) {
    const root = mkdtempSync(join(tmpdir(), 'cxm-stage-assemblies-'));
    process.on('exit', () => rmSync(root, { recursive: true, force: true }));
    processRoot = root;
  }
  return processRoot;
}

/** Synthesizes a variant's cloud assembly into `outdir`; the stack's modules load only in a file that does. */
async function synthesizeVariant(name: string, outdir: string): Promise<void> {
  const [{ App }, { BUNDLING_STACKS }, { CxmStack }] = await Promise.all([
    import('aws-cdk-lib'),
    import('aws-cdk-lib/cx-api'),
    import('#infra/cdk/stack'),
  ]);
  const { config } = stageVariant(name as StageVariantName);
  const app = new App({
    ...WITHOUT_BUILTIN_VALIDATION,
    outdir,
    context: { ...CDK_JSON_CONTEXT, stage: config.stage, [BUNDLING_STACKS]: [] },
  });
  new CxmStack(app, { config });
  app.synth();
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
