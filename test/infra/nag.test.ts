/**
 * cdk-nag's AwsSolutions pack on the synthesized stacks of the three kinds of stage: dev (a
 * one-node OpenSearch domain), lite (reporting on DynamoDB, no domain) and prod (a zone-aware
 * domain). Zero findings may remain, warnings included (the pack fails a synthesis on either);
 * every acknowledgement in infra/cdk/nag-acknowledgements.ts must silence a finding that really occurs,
 * and leaving it out must bring exactly that finding back.
 *
 * The pack reads the construct tree, which no synthesized template keeps: this file builds its own
 * stacks of each stage (the other infra files read the run's one synthesis of each,
 * test/support/stage-templates.ts): two per stage, one for each half of the acknowledgements (an
 * acknowledgement cannot be taken back), and a few more for what it changes on purpose (a method
 * added, an acknowledgement left out, the pack run at synth).
 * Bundling is skipped: the pack reads resource properties, not code, and esbuild for every function
 * would cost tens of seconds per stage (bundles.test.ts and stack.test.ts cover the bundles).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { AuthorizationType, type CfnMethod, MockIntegration } from 'aws-cdk-lib/aws-apigateway';
import { CfnPolicy, type Role } from 'aws-cdk-lib/aws-iam';
import { BUNDLING_STACKS, CDK_APP_MODE_CONTEXT, VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '#infra/cdk/constructs/api-function';
import {
  ACTIONS_WITHOUT_RESOURCE_SCOPE,
  applyNagAcknowledgements,
  enforceNagChecks,
  type NagAcknowledgement,
  nagAcknowledgements,
} from '#infra/cdk/nag-acknowledgements';
import { CxmStack } from '#infra/cdk/stack';
import { stageConfig } from '#infra/cdk/stage/config';
import { PROJECT_ROOT } from '#infra/project-root';
import { OPENAPI_DOCUMENT_PATH } from '#shared/openapi/build-openapi-document';
import { CDK_JSON_CONTEXT, WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';

interface Finding {
  /** `AwsSolutions-<rule>` or `AwsSolutions-<rule>[<finding>]`. */
  id: string;
  path: string;
  severity: string;
  description: string;
}

interface PolicyStatement {
  Action: string | string[];
  Resource: unknown;
}

const STAGES = ['dev', 'lite', 'prod'] as const;
type StageName = (typeof STAGES)[number];

const outdirs: string[] = [];

/** The stage's stack with the same context (feature flags) as `cdk synth`: the deployed one. */
function build(stage: string, context: Record<string, unknown> = {}): { app: App; stack: CxmStack } {
  const outdir = mkdtempSync(join(tmpdir(), `cxm-nag-${stage}-`));
  outdirs.push(outdir);
  const app = new App({
    ...WITHOUT_BUILTIN_VALIDATION,
    outdir,
    context: { ...CDK_JSON_CONTEXT, stage, [BUNDLING_STACKS]: [], ...context },
  });
  return { app, stack: new CxmStack(app, { config: stageConfig(stage) }) };
}

/** What the pack reports now, one entry per finding and resource. */
function findings(scope: IConstruct): Finding[] {
  return new AwsSolutionsChecks().validateScope(scope).violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => ({
      id: violation.ruleName,
      path: resource.constructPath ?? '(no path)',
      severity: violation.severity ?? 'error',
      description: violation.description,
    })),
  );
}

const listed = (list: readonly Finding[]) =>
  list.map((f) => `  ${f.severity} ${f.id} at ${f.path}: ${f.description}`).join('\n');
const named = (ack: NagAcknowledgement) => `${ack.id} at ${ack.scope.node.path}`;
const key = (f: Finding) => `${f.id} at ${f.path}`;

/** cdk-nag's own rule: an acknowledgement on a construct covers the resources at and under it. */
const covers = (ack: NagAcknowledgement, finding: Finding) =>
  finding.id === ack.id && (finding.path === ack.scope.node.path || finding.path.startsWith(`${ack.scope.node.path}/`));

interface StageResult {
  stack: CxmStack;
  /** Before any acknowledgement. */
  raw: Finding[];
  acknowledgements: NagAcknowledgement[];
  /** After the first half of them alone (halves below). */
  afterFirstHalf: Finding[];
  /** After all of them: the second half applied on top of the first. */
  remaining: Finding[];
  /** The acknowledgements of a second stack of the stage, built the same way. */
  rebuiltAcknowledgements: NagAcknowledgement[];
  /** That second stack after the second half alone. */
  afterSecondHalf: Finding[];
}

/** Every other acknowledgement (even indexes), and the rest: each half is left out once below. */
function halves(acknowledgements: readonly NagAcknowledgement[]): [NagAcknowledgement[], NagAcknowledgement[]] {
  return [
    acknowledgements.filter((_, index) => index % 2 === 0),
    acknowledgements.filter((_, index) => index % 2 === 1),
  ];
}

const results = new Map<StageName, StageResult>();

beforeAll(() => {
  for (const stage of STAGES) {
    // The pack reads the construct tree, so no synth is needed here (a second or more a stack);
    // 'at synth, as app.ts runs it' below runs it on a synthesized app.
    const { stack } = build(stage);
    const raw = findings(stack);
    const acknowledgements = nagAcknowledgements(stack);
    const [first, second] = halves(acknowledgements);
    applyNagAcknowledgements(first);
    const afterFirstHalf = findings(stack);
    applyNagAcknowledgements(second);
    const remaining = findings(stack);
    // On the stack above the second half meets findings the first half already silenced, so what
    // it alone silences is seen on a stack of its own.
    const rebuilt = build(stage).stack;
    const rebuiltAcknowledgements = nagAcknowledgements(rebuilt);
    applyNagAcknowledgements(halves(rebuiltAcknowledgements)[1]);
    results.set(stage, {
      stack,
      raw,
      acknowledgements,
      afterFirstHalf,
      remaining,
      rebuiltAcknowledgements,
      afterSecondHalf: findings(rebuilt),
    });
  }
});

afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

describe.each(STAGES)('%s stage', (stage) => {
  const result = () => results.get(stage)!;

  it('has no unacknowledged finding, neither error nor warning', () => {
    const { remaining } = result();
    expect(
      remaining,
      `cdk-nag findings without an acknowledgement: fix them in their construct, or acknowledge them with a reason in infra/cdk/nag-acknowledgements.ts\n${listed(remaining)}\n`,
    ).toEqual([]);
  });

  it('every acknowledgement matches a finding of its own rule at or under its construct', () => {
    const { raw, acknowledgements } = result();
    const unused = acknowledgements.filter((ack) => !raw.some((finding) => covers(ack, finding)));
    expect(
      unused.map(named),
      `acknowledgements that match no finding (remove them, or narrow them)\nfindings:\n${listed(raw)}\n`,
    ).toEqual([]);
  });

  it('acknowledges each finding once, at one construct', () => {
    const { raw, acknowledgements } = result();
    const twice = raw.filter((finding) => acknowledgements.filter((ack) => covers(ack, finding)).length > 1);
    expect(twice.map(key)).toEqual([]);
  });

  it('grants nothing on "*" to a function role but the actions that have no resource scope', () => {
    const { stack } = result();
    const functions = stack.node.findAll().filter((node): node is ApiFunction => node instanceof ApiFunction);
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      for (const policy of fn.role!.node.findAll().filter((node): node is CfnPolicy => node instanceof CfnPolicy)) {
        const document = stack.resolve(policy.policyDocument) as { Statement: PolicyStatement[] };
        for (const statement of document.Statement.filter((s) => [s.Resource].flat().includes('*'))) {
          expect([...ACTIONS_WITHOUT_RESOURCE_SCOPE], `${fn.node.path}: actions on "*"`).toEqual(
            expect.arrayContaining([statement.Action].flat()),
          );
        }
      }
    }
  });
});

describe('leaving acknowledgements out', () => {
  // Each finding has exactly one acknowledgement (tested above), so leaving out every other one
  // shows, for all of them at once, that each is what silences its findings: they come back when it
  // is left out, and stay away when only the others are. Each half is left out on a stack where
  // only the other was applied (an acknowledgement cannot be taken back): the first half alone on
  // the stack of the checks above, the second alone on a second stack of the stage.
  it.each(
    STAGES.flatMap(
      (stage) =>
        [
          [stage, 'second'],
          [stage, 'first'],
        ] as const,
    ),
  )('%s, leaving out the %s half of the acknowledgements: exactly their findings come back', (stage, half) => {
    const { raw, acknowledgements, rebuiltAcknowledgements, afterFirstHalf, afterSecondHalf } = results.get(stage)!;
    expect(rebuiltAcknowledgements.map(named)).toEqual(acknowledgements.map(named));
    const [first, second] = halves(acknowledgements);
    const leftOut = half === 'second' ? second : first;
    const found = half === 'second' ? afterFirstHalf : afterSecondHalf;
    const expected = raw.filter((finding) => leftOut.some((ack) => covers(ack, finding)));
    expect(found.map(key).sort()).toEqual(expected.map(key).sort());
    for (const ack of leftOut)
      expect(
        expected.some((finding) => covers(ack, finding)),
        `${named(ack)} brings nothing back`,
      ).toBe(true);
  });
});

describe('unauthenticated methods', () => {
  it(`GET ${OPENAPI_DOCUMENT_PATH} is the one method without the authorizer, acknowledged as public on purpose`, () => {
    const { stack, acknowledgements } = results.get('lite')!;
    const open = stack.api.restApi.methods.filter(
      (method) => (method.node.defaultChild as CfnMethod).authorizationType !== AuthorizationType.CUSTOM,
    );
    expect(open.map((method) => `${method.httpMethod} ${method.resource.path}`)).toEqual([
      `GET ${OPENAPI_DOCUMENT_PATH}`,
    ]);
    expect(
      acknowledgements
        .filter((ack) => ack.scope === open[0])
        .map((ack) => ack.id)
        .sort(),
    ).toEqual(['AwsSolutions-APIG4', 'AwsSolutions-COG4']);
  });

  it('a method without the authorizer that is not listed as public stays a finding', () => {
    const { stack } = build('lite');
    const method = stack.api.restApi.root
      .addResource('unlisted')
      .addMethod('GET', new MockIntegration(), { authorizationType: AuthorizationType.NONE });
    const acknowledgements = nagAcknowledgements(stack);
    // The same acknowledgements as on the lite stack of the checks above, built again: none for the method.
    expect(acknowledgements.map(named)).toEqual(results.get('lite')!.acknowledgements.map(named));
    applyNagAcknowledgements(acknowledgements);
    const onMethod = findings(stack).filter((finding) => finding.path.startsWith(`${method.node.path}/`));
    expect(onMethod.map((finding) => finding.id).sort()).toEqual(['AwsSolutions-APIG4', 'AwsSolutions-COG4']);
  });
});

describe('at synth, as app.ts runs it', () => {
  // In-memory mode: a failed validation throws with the report instead of printing it. CDK's
  // built-in CloudFormation validation is left out (build()): cloudformation-validate.test.ts's.
  const inMemory = { [CDK_APP_MODE_CONTEXT]: 'inmemory' };

  it('a stage synthesizes with the pack registered, and its validation report lists no violation', () => {
    const { app, stack } = build('dev', inMemory);
    enforceNagChecks(stack);
    const assembly = app.synth();
    const report = JSON.parse(readFileSync(join(assembly.directory, VALIDATION_REPORT_FILE), 'utf8')) as {
      pluginReports: Array<{ pluginName: string; violations: unknown[] }>;
    };
    expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
  });

  it('a missing acknowledgement fails the synthesis and names the rule and the resource', () => {
    const { app, stack } = build('lite', inMemory);
    const acknowledgements = nagAcknowledgements(stack);
    enforceNagChecks(
      stack,
      acknowledgements.filter((ack) => ack.id !== 'AwsSolutions-APIG2'),
    );
    expect(() => app.synth()).toThrow(/cxm-lite\/Api\/RestApi\/Resource[\s\S]*AwsSolutions-APIG2/);
    const report = JSON.parse(readFileSync(join(app.outdir, VALIDATION_REPORT_FILE), 'utf8')) as {
      pluginReports: Array<{
        violations: Array<{ ruleName: string; violatingConstructs: Array<{ constructPath: string }> }>;
      }>;
    };
    const violations = report.pluginReports.flatMap((plugin) => plugin.violations);
    expect(violations.map((v) => [v.ruleName, v.violatingConstructs.map((c) => c.constructPath)])).toEqual([
      ['AwsSolutions-APIG2', ['cxm-lite/Api/RestApi/Resource']],
    ]);
  });
});

/** The anchors GitHub gives a Markdown file's headings (outside code blocks): lower case, punctuation dropped, spaces as '-'. */
function headingAnchors(file: string): string[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/^#+\s+(.+)$/gm)].map(([, heading]) =>
    heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-'),
  );
}

describe('reasons', () => {
  const all = () => [...results.values()].flatMap((result) => result.acknowledgements);

  it('every acknowledgement names the decision it rests on, and that decision exists', () => {
    for (const ack of all()) {
      const [file, anchor] = ack.decision.split('#') as [string, string | undefined];
      // A module, or a README section: the file must exist, and the anchor be one of its headings.
      expect(existsSync(join(PROJECT_ROOT, file)), `${named(ack)}: ${file}`).toBe(true);
      if (anchor !== undefined) expect(headingAnchors(file), `${named(ack)}: ${ack.decision}`).toContain(anchor);
    }
  });

  it("every reason explains itself: several sentences' worth, not a restatement of the rule", () => {
    const descriptions = new Map(
      [...results.values()].flatMap((result) =>
        result.raw.map((finding) => [finding.id, finding.description] as const),
      ),
    );
    for (const ack of all()) {
      expect(ack.reason.length, named(ack)).toBeGreaterThanOrEqual(120);
      expect(ack.reason.split(/\s+/).length, named(ack)).toBeGreaterThanOrEqual(20);
      expect(ack.reason, named(ack)).not.toContain(descriptions.get(ack.id) ?? '\u0000');
    }
  });
});

describe('fixed instead of acknowledged', () => {
  it('function roles carry no managed policy (no AWSLambdaBasicExecutionRole) and write only their own log group', () => {
    const { stack } = results.get('dev')!;
    for (const fn of stack.node.findAll().filter((node): node is ApiFunction => node instanceof ApiFunction)) {
      const role = fn.role as Role;
      expect(
        stack.resolve((role.node.defaultChild as { managedPolicyArns?: unknown }).managedPolicyArns),
        fn.node.path,
      ).toBeUndefined();
      const statements = role.node
        .findAll()
        .filter((node): node is CfnPolicy => node instanceof CfnPolicy)
        .flatMap((policy) => (stack.resolve(policy.policyDocument) as { Statement: PolicyStatement[] }).Statement);
      const logStatements = statements.filter((s) => [s.Action].flat().some((action) => action.startsWith('logs:')));
      const logGroupArn = stack.resolve(fn.logGroup.logGroupArn);
      expect(
        logStatements.map((s) => s.Resource),
        fn.node.path,
      ).toEqual([logGroupArn]);
    }
  });

  it('table grants name the indexes of the spec, never index/*', () => {
    for (const { raw } of results.values()) {
      expect(raw.filter((finding) => finding.id.includes('/index/*')).map(key)).toEqual([]);
    }
  });
});
