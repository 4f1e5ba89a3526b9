/**
 * The synthesized CloudFormation template of every kind of stage the stack can be, for the tests
 * that hold a whole template to what AWS accepts (test/infra/cfn-lint.test.ts,
 * test/infra/iam-reference.test.ts). Each variant is synthesized on first use and kept for the rest
 * of the test process, with cdk.json's context (the feature flags of `cdk synth`) and bundling
 * skipped: these checks read resources, not code (bundles.test.ts covers the code).
 *
 * The variants between them take every branch the stack has on its stage settings: reporting on
 * OpenSearch (one zone, several zones) or on DynamoDB, tables kept or deleted on destroy, and the
 * optional parts (each rule of the web ACL, reserved concurrency, browser upload CORS, MCP
 * origins, call summaries) on and off.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { type StageConfig, stageConfig } from '#infra/cdk/config';
import { CxmStack } from '#infra/cdk/stack';
import { PROJECT_ROOT } from '#infra/project-root';

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

export const STAGE_VARIANT_NAMES = ['lite', 'dev', 'prod', 'lite-flipped'] as const;

/** How the tests name a variant: a stage of infra/cdk/config.ts, or `lite-flipped` (see STAGE_VARIANTS). */
export type StageVariantName = (typeof STAGE_VARIANT_NAMES)[number];

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

/** The variants, in the order tests list them. */
export const STAGE_VARIANTS: readonly StageVariant[] = [
  { name: 'lite', covers: 'reporting on DynamoDB: no search domain, no indexer', config: lite },
  { name: 'dev', covers: 'reporting on a one-node, one-zone OpenSearch domain and its indexer; resources deleted on destroy', config: stageConfig('dev') },
  { name: 'prod', covers: 'a zone-aware OpenSearch domain over 3 zones; tables and logs retained and deletion-protected', config: stageConfig('prod') },
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
];

const cdkContext = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
const synthesized = new Map<StageVariantName, StageTemplate>();

/** The variant's template, synthesized on the first call of the process. */
export function stageTemplate(name: StageVariantName): StageTemplate {
  const cached = synthesized.get(name);
  if (cached) return cached;
  const variant = STAGE_VARIANTS.find((candidate) => candidate.name === name);
  if (!variant) throw new Error(`no stage variant ${name}`);
  const result: StageTemplate = { ...variant, template: deepFreeze(synthesize(variant.config)) };
  synthesized.set(name, result);
  return result;
}

/** Every variant's template, in STAGE_VARIANTS order. */
export function stageTemplates(): StageTemplate[] {
  return STAGE_VARIANTS.map((variant) => stageTemplate(variant.name));
}

function synthesize(config: StageConfig): CfnTemplate {
  // The assembly is only a way to the template: it is read, then deleted.
  const outdir = mkdtempSync(join(tmpdir(), `cxm-stage-template-${config.stage}-`));
  try {
    const app = new App({ outdir, context: { ...cdkContext, stage: config.stage, [BUNDLING_STACKS]: [] } });
    const stack = new CxmStack(app, { config });
    return app.synth().getStackByName(stack.stackName).template as CfnTemplate;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
