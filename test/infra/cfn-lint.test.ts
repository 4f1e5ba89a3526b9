/**
 * cfn-lint on the synthesized template of every stage variant (test/support/stage-templates.ts),
 * for us-east-1 and eu-west-1 (the templates are environment-agnostic: a stage deploys to whichever
 * region its caller's profile names): what CloudFormation's resource schemas accept (property names
 * and types, allowed values, patterns and ranges, what each region offers) and cfn-lint's other
 * rules, checked offline, before any deploy. Zero findings may remain but those acknowledged, with
 * their reasons, in infra/cdk/cfn-lint-acknowledgements.ts, and every acknowledgement must cover a
 * finding. The templates are linted side by side, one cfn-lint run per core.
 *
 * cfn-lint is a Python program that npm does not install: without it on PATH the suite says so and
 * is skipped, except under CI (`CI` set), where it fails with what to install.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  acknowledgementCovers,
  CFN_LINT_IGNORED_RULES,
  type CfnLintAcknowledgement,
  cfnLintAcknowledgements,
} from '#infra/cdk/cfn-lint-acknowledgements';
import {
  CFN_LINT_INSTALL_HINT,
  type CfnLintFinding,
  describeFinding,
  installedCfnLint,
  lintTemplates,
} from '#test/support/cfn-lint';
import {
  type CfnTemplate,
  loadStageTemplates,
  STAGE_VARIANT_NAMES,
  stageTemplate,
} from '#test/support/stage-templates';

const REGIONS = ['us-east-1', 'eu-west-1'];
const installed = installedCfnLint();
const required = Boolean(process.env.CI);

/**
 * A function of the lite template with one mistake cfn-lint must report (a runtime Lambda does not
 * have), linted in the same run: proof that the run reads findings and that no acknowledgement
 * hides a new one. The function alone, not the whole template again: a template costs cfn-lint
 * some 7 s of CPU, and what it finds beside the mistake (references to resources left out) is
 * never at the mistake's path.
 */
const BROKEN = 'lite-broken';

function brokenTemplate(): { template: CfnTemplate; path: string } {
  const lite = stageTemplate('lite').template;
  const [logicalId, fn] = Object.entries(lite.Resources).find(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  )!;
  const broken = structuredClone(fn);
  broken.Properties = { ...broken.Properties, Runtime: 'nodejs1.x' };
  const template: CfnTemplate = { ...structuredClone(lite), Resources: { [logicalId]: broken } };
  return { template, path: `Resources/${logicalId}/Properties/Runtime` };
}

const unacknowledged = (findings: readonly CfnLintFinding[], acks = cfnLintAcknowledgements) =>
  findings.filter((finding) => !acks.some((ack) => acknowledgementCovers(ack, finding)));
const unused = (acks: readonly CfnLintAcknowledgement[], findings: readonly CfnLintFinding[]) =>
  acks.filter((ack) => !findings.some((finding) => acknowledgementCovers(ack, finding)));
const named = (ack: CfnLintAcknowledgement) => `${ack.rule} at ${ack.path}`;
const listed = (findings: readonly CfnLintFinding[]) =>
  findings.map((finding) => `  ${finding.template}: ${describeFinding(finding)}`).join('\n');

const title = installed
  ? `cfn-lint (${installed}) on every stage template, ${REGIONS.join(' and ')}`
  : `cfn-lint on every stage template (${required ? 'CI is set: cfn-lint is required' : `skipped: cfn-lint is not on PATH; to run it: ${CFN_LINT_INSTALL_HINT}; CI fails without it`})`;

describe.skipIf(!installed && !required)(title, () => {
  let findings: Map<string, CfnLintFinding[]>;
  let broken: ReturnType<typeof brokenTemplate>;
  const all = () => [...findings].filter(([name]) => name !== BROKEN).flatMap(([, list]) => list);

  beforeAll(async () => {
    if (!installed)
      throw new Error(
        `cfn-lint is not on PATH, and CI needs it to check the synthesized templates; install it: ${CFN_LINT_INSTALL_HINT}`,
      );
    const variants = await loadStageTemplates();
    broken = brokenTemplate();
    const templates = new Map<string, unknown>([
      ...variants.map(({ name, template }) => [name, template] as const),
      [BROKEN, broken.template],
    ]);
    findings = await lintTemplates(templates, { regions: REGIONS, ignoreRules: Object.keys(CFN_LINT_IGNORED_RULES) });
  }, 300_000);

  it.each(STAGE_VARIANT_NAMES)('%s: no finding without an acknowledgement, error or warning', (name) => {
    const remaining = unacknowledged(findings.get(name)!);
    expect(
      remaining.map(describeFinding),
      `cfn-lint findings without an acknowledgement: fix them in their construct, or acknowledge them with a reason in infra/cdk/cfn-lint-acknowledgements.ts\n${listed(remaining)}\n`,
    ).toEqual([]);
  });

  it('every acknowledgement covers a finding of its rule, at its path or under it, in some variant', () => {
    expect(
      unused(cfnLintAcknowledgements, all()).map(named),
      `acknowledgements that cover no finding (remove them, or correct them)\nfindings:\n${listed(all())}\n`,
    ).toEqual([]);
  });

  it('acknowledges each finding once', () => {
    const twice = all().filter(
      (finding) => cfnLintAcknowledgements.filter((ack) => acknowledgementCovers(ack, finding)).length > 1,
    );
    expect(twice.map(describeFinding)).toEqual([]);
  });

  it('a mistake in a copy of a template is a finding, at its path, that no acknowledgement covers', () => {
    const found = findings.get(BROKEN)!.filter((finding) => finding.path === broken.path);
    expect(found.map((finding) => finding.rule)).toEqual(['E3030']);
    expect(unacknowledged(found)).toEqual(found);
  });

  it('an acknowledgement of that mistake covers it, and is reported as covering nothing in the real templates', () => {
    const stale: CfnLintAcknowledgement = {
      rule: 'E3030',
      path: broken.path,
      reason: 'the copy of a template this file breaks on purpose',
    };
    expect(unacknowledged(findings.get(BROKEN)!, [...cfnLintAcknowledgements, stale])).toEqual(
      unacknowledged(findings.get(BROKEN)!).filter((finding) => finding.path !== broken.path),
    );
    expect(unused([...cfnLintAcknowledgements, stale], all())).toEqual([stale]);
  });
});

describe('cfn-lint acknowledgements', () => {
  it('are narrow (a resource, output or rule of the template, or a path under one), of a rule that runs, each with its reason', () => {
    for (const ack of cfnLintAcknowledgements) {
      expect(ack.rule, named(ack)).toMatch(/^[EWI]\d{4}$/);
      expect(Object.keys(CFN_LINT_IGNORED_RULES), named(ack)).not.toContain(ack.rule);
      expect(ack.path, named(ack)).toMatch(/^(Resources|Outputs|Rules|Conditions|Parameters)\/[^/]+(\/.+)?$/);
      expect(ack.reason.split(/\s+/).length, named(ack)).toBeGreaterThanOrEqual(20);
    }
    for (const [rule, reason] of Object.entries(CFN_LINT_IGNORED_RULES))
      expect(reason.split(/\s+/).length, rule).toBeGreaterThanOrEqual(20);
  });

  it('cover a finding of their rule at their path and under it, and nothing beside it', () => {
    const ack: CfnLintAcknowledgement = { rule: 'E3030', path: 'Resources/Fn', reason: '' };
    const at = (rule: string, path: string) => ({ rule, path });
    expect(acknowledgementCovers(ack, at('E3030', 'Resources/Fn'))).toBe(true);
    expect(acknowledgementCovers(ack, at('E3030', 'Resources/Fn/Properties/Runtime'))).toBe(true);
    expect(acknowledgementCovers(ack, at('E3030', 'Resources/FnRole/Properties/Runtime'))).toBe(false);
    expect(acknowledgementCovers(ack, at('E3002', 'Resources/Fn/Properties/Runtime'))).toBe(false);
  });
});
