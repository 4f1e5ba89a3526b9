/**
 * The CloudFormation validation `cdk synth` runs (aws-cdk-lib's built-in CloudFormationValidatePlugin:
 * AWS's offline validator, with CloudFormation's resource schemas and the CDK's default rules) on the
 * template of every kind of stage (test/support/stage-templates.ts). cdk.json turns on
 * `@aws-cdk/core:validateAgainstDefaultRules`, so an error there fails `cdk synth` and so every
 * deploy, and a warning is printed by each: here neither may remain.
 *
 * The other tests' syntheses leave the validation out (WITHOUT_BUILTIN_VALIDATION), and so does the
 * local stage's (infra/local/runtime/local-assembly.ts): its engine costs each process that starts it 3-7
 * CPU-s, and this file starts it once for every template. That a failed validation fails the
 * synthesis is CDK's own, and test/infra/nag.test.ts sees it fail one with cdk-nag's plugin.
 * The plugin reads templates, not the construct tree, so an acknowledgement made in the tree
 * (`Validations.of(scope).acknowledge()`) does not reach it here: such a finding fails this file
 * until it reads acknowledgements too. The stacks make none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  App,
  CloudFormationValidatePlugin,
  type PolicyValidationPluginReport,
  type PolicyViolation,
} from 'aws-cdk-lib';
import { VALIDATE_AGAINST_DEFAULT_RULES } from 'aws-cdk-lib/cx-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CDK_JSON_CONTEXT, WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';
import {
  type CfnTemplate,
  loadStageTemplates,
  STAGE_VARIANT_NAMES,
  stageTemplate,
} from '#test/support/stage-templates';

/** A whole copy of the lite template with one mistake the validator must report: a function below Lambda's 128 MB. */
const BROKEN = 'lite-broken';

function brokenTemplate(): { template: CfnTemplate; logicalId: string } {
  const template = structuredClone(stageTemplate('lite').template) as CfnTemplate;
  const [logicalId, fn] = Object.entries(template.Resources).find(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  )!;
  fn.Properties = { ...fn.Properties, MemorySize: 64 };
  return { template, logicalId };
}

/** One line per finding and resource: severity, rule, where, what. */
const described = (violations: readonly PolicyViolation[]) =>
  violations.flatMap((violation) =>
    violation.violatingResources.map(
      (resource) =>
        `${violation.severity} ${violation.ruleName} at ${resource.resourceLogicalId ?? '(the template)'}${resource.locations.length ? ` ${resource.locations.join(', ')}` : ''}: ${violation.description}`,
    ),
  );

let dir: string;
let broken: ReturnType<typeof brokenTemplate>;
let report: PolicyValidationPluginReport;
const pathOf = (name: string) => join(dir, `${name}.template.json`);
/** The findings in the template validated under `name`. */
const findingsOf = (name: string): PolicyViolation[] =>
  report.violations.flatMap((violation) => {
    const resources = violation.violatingResources.filter((resource) => resource.templatePath === pathOf(name));
    return resources.length ? [{ ...violation, violatingResources: resources }] : [];
  });

beforeAll(async () => {
  const variants = await loadStageTemplates();
  dir = mkdtempSync(join(tmpdir(), 'cxm-cloudformation-validate-'));
  broken = brokenTemplate();
  const templates: Array<[string, unknown]> = [
    ...variants.map(({ name, template }) => [name, template] as [string, unknown]),
    [BROKEN, broken.template],
  ];
  for (const [name, template] of templates) writeFileSync(pathOf(name), JSON.stringify(template, null, 1));
  // One call for every template: the engine loads the schemas of every resource type they hold once.
  report = new CloudFormationValidatePlugin().validate({
    templatePaths: templates.map(([name]) => pathOf(name)),
    // Environment-agnostic, as `cdk synth` gives the stage's stack: no account or region to assume.
    stackTemplates: templates.map(([name]) => ({
      stackConstructPath: name,
      templatePath: pathOf(name),
      accountId: undefined,
      region: undefined,
    })),
    // Read by plugins that walk the tree; this one reads the templates only.
    appConstruct: new App(WITHOUT_BUILTIN_VALIDATION),
  });
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('CDK’s built-in CloudFormation validation on every stage template', () => {
  it('fails a synthesis on an error, as cdk.json sets it', () => {
    expect(CDK_JSON_CONTEXT[VALIDATE_AGAINST_DEFAULT_RULES]).toBe(true);
  });

  it.each(STAGE_VARIANT_NAMES)('%s: no error and no warning', (name) => {
    expect(
      described(findingsOf(name)),
      'findings of the validation `cdk synth` runs: fix them in their construct (infra/cdk/constructs/*)\n',
    ).toEqual([]);
  });

  it('reports a mistake in a copy of a template as an error at its resource and property', () => {
    const { logicalId } = broken;
    const found = findingsOf(BROKEN);
    expect(report.success).toBe(false);
    expect(
      found.filter(
        (violation) =>
          violation.severity === 'error' &&
          violation.violatingResources.some(
            (resource) =>
              resource.resourceLogicalId === logicalId &&
              resource.locations.some((location) => location.endsWith('MemorySize')),
          ),
      ),
      described(found).join('\n'),
    ).not.toEqual([]);
  });
});
