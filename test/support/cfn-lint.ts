/**
 * cfn-lint, AWS's CloudFormation linter (a Python program, not an npm package: `pip install
 * cfn-lint`), run on synthesized templates: each is written to a temporary file, linted, and
 * cfn-lint's JSON report read back as findings per template.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { run } from './run-process.ts';

/** How to install the cfn-lint the acknowledgements were written against, for whoever runs the tests without it. */
export const CFN_LINT_INSTALL_HINT =
  'pipx install cfn-lint==1.51.0 (or pip install cfn-lint==1.51.0), so that `cfn-lint` is on PATH';

export interface CfnLintFinding {
  /** The name the template was linted under. */
  template: string;
  /** cfn-lint's rule id: `E3002`, `W2001`. */
  rule: string;
  level: string;
  /** Where in the template, `/`-separated from its root (`Resources/<logical id>/Properties/...`); '' for the whole template. */
  path: string;
  /** The line in the linted file (written with one member a line). */
  line: number;
  message: string;
}

/** cfn-lint's JSON report, as far as it is read here. */
interface ReportedMatch {
  Filename: string | null;
  Level: string;
  Location: { Path: Array<string | number> | null; Start: { LineNumber: number } };
  Message: string;
  Rule: { Id: string };
}

/** `cfn-lint <version>` when cfn-lint runs on this machine, undefined when it does not. */
export function installedCfnLint(): string | undefined {
  const result = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/**
 * Lints each named template for the regions given, leaving out the rules given, and answers every
 * finding by template name (a template without findings has an empty list). The templates are
 * shared among one cfn-lint run per core, run side by side: each run starts an interpreter and
 * loads the resource schemas once, and most of its time is spent on its templates.
 */
export async function lintTemplates(
  templates: ReadonlyMap<string, unknown>,
  options: { regions: readonly string[]; ignoreRules: readonly string[] },
): Promise<Map<string, CfnLintFinding[]>> {
  const dir = mkdtempSync(join(tmpdir(), 'cxm-cfn-lint-'));
  try {
    const files = [...templates].map(([name, template]) => {
      if (!/^[\w.-]+$/.test(name))
        throw new Error(`template name "${name}": use letters, digits, '.', '_' and '-' (it names a file)`);
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(template, null, 1));
      return file;
    });
    const runs = Math.min(files.length, availableParallelism());
    const groups = Array.from({ length: runs }, (_, run) => files.filter((_, index) => index % runs === run));
    const findings = new Map([...templates.keys()].map((name) => [name, [] as CfnLintFinding[]]));
    for (const finding of (await Promise.all(groups.map((group) => lintFiles(group, options)))).flat()) {
      const list = findings.get(finding.template);
      // A finding on no file of the run (E0003, a configuration error) is cfn-lint failing to run.
      if (!list) throw new Error(`cfn-lint reported on no template of the run: ${describeFinding(finding)}`);
      list.push(finding);
    }
    return findings;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function lintFiles(
  files: readonly string[],
  options: { regions: readonly string[]; ignoreRules: readonly string[] },
): Promise<CfnLintFinding[]> {
  const args = [
    '--format',
    'json',
    '--regions',
    ...options.regions,
    ...(options.ignoreRules.length > 0 ? ['--ignore-checks', ...options.ignoreRules] : []),
    '--',
    ...files,
  ];
  const { code, stdout, stderr } = await run('cfn-lint', args, {}, 240_000);
  const report = parseReport(stdout);
  // Findings set bits 2, 4 and 8 of the exit code; anything else is cfn-lint failing to run.
  if (report === undefined || code === null || (code & ~(2 | 4 | 8)) !== 0)
    throw new Error(`cfn-lint ${args.join(' ')} failed (exit code ${code}):\n${stderr}\n${stdout}`);
  return report.map((match) => ({
    template: match.Filename ? basename(match.Filename, '.json') : '(no template)',
    rule: match.Rule.Id,
    level: match.Level,
    path: (match.Location.Path ?? []).join('/'),
    line: match.Location.Start.LineNumber,
    message: match.Message,
  }));
}

/** A finding on one line: rule, level, where, what. */
export function describeFinding(finding: CfnLintFinding): string {
  return `${finding.rule} (${finding.level}) at ${finding.path || '(template)'}, line ${finding.line}: ${finding.message}`;
}

function parseReport(stdout: string): ReportedMatch[] | undefined {
  try {
    const report: unknown = JSON.parse(stdout);
    return Array.isArray(report) ? (report as ReportedMatch[]) : undefined;
  } catch {
    return undefined;
  }
}
