/**
 * cfn-lint's findings on the synthesized templates that this stack accepts instead of fixing, each
 * with why, and the rules it does not run.
 *
 * test/infra/cfn-lint.test.ts runs cfn-lint (AWS's CloudFormation linter, 1.51.0 here and in CI)
 * on the template of every stage variant (test/support/stage-templates.ts) for us-east-1 and
 * eu-west-1, and fails on any finding, error or warning, that no acknowledgement here covers, and
 * on an acknowledgement that covers no finding, so stale ones do not pile up. Fix a finding in its
 * construct when the fix is right for a production API; acknowledge it here only when the template
 * is right as it is, and say why.
 *
 * To add one: run `node node_modules/vitest/vitest.mjs run --config test/vitest.config.ts --project
 * sources test/infra/cfn-lint.test.ts`, which lists every unacknowledged finding with its rule, its
 * path in the template and cfn-lint's message, and acknowledge it at the narrowest path that holds
 * it (the resource, or the property under it).
 */

/** One finding, or a set of findings of one rule under one path, accepted with its reason. */
export interface CfnLintAcknowledgement {
  /** cfn-lint's rule id: `E3002`, `W2001`. */
  readonly rule: string;
  /**
   * Where, as cfn-lint's path from the template's root joined with `/`: `Resources/<logical id>`,
   * or a property under it (`Resources/<logical id>/Properties/Policies`). It covers that path and
   * every path under it.
   */
  readonly path: string;
  /** Why the template is right as it is, for this API, in terms a reviewer can check. */
  readonly reason: string;
}

/**
 * Rules cfn-lint does not run on these templates, with why: what they report is how CDK writes a
 * template, with nothing to decide for this API.
 */
export const CFN_LINT_IGNORED_RULES: Readonly<Record<string, string>> = {
  W3005:
    "CDK makes each function (and the NoteCreated pipe) depend on its role construct, so that the role's policy exists before anything can invoke it; the DependsOn it writes names the policy, which nothing else orders, and the role, which the GetAtt of its ARN already orders. A redundant dependency changes no deploy order.",
};

/** Every acknowledged finding; empty while every finding is fixed in its construct. */
export const cfnLintAcknowledgements: readonly CfnLintAcknowledgement[] = [];

/** Whether an acknowledgement covers a finding: the same rule, at its path or under it. */
export function acknowledgementCovers(
  acknowledgement: CfnLintAcknowledgement,
  finding: { rule: string; path: string },
): boolean {
  return (
    finding.rule === acknowledgement.rule &&
    (finding.path === acknowledgement.path || finding.path.startsWith(`${acknowledgement.path}/`))
  );
}
