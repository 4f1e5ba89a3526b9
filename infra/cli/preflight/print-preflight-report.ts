/**
 * What `cxm preflight` shows: a table of the checks (check, finding, what was found), the count of
 * each finding, then for every check that is not ok one line of what to do, with the commands
 * that do it indented below. The fixes stand under the table rather than in it: a fix is a
 * sentence (callSummariesRefusal's, a quota to ask for) that would stretch every row past a
 * terminal's width; `--json` has everything.
 */
import { formatTable } from '../terminal/format-table.ts';
import type { PreflightReport } from './run-preflight.ts';

/**
 * The report as the terminal shows it.
 *
 * @example cli.print(formatPreflightReport((await runPreflight(cli, 'dev', undefined)).report))
 */
export function formatPreflightReport(report: PreflightReport): string {
  const header = ['CHECK', 'FINDING', 'FOUND'];
  const rows = report.checks.map((check) => [check.name, check.finding, check.detail]);
  const lines = [
    `Preflight of stage ${report.stage} in ${report.region}`,
    '',
    formatTable([header, ...rows]),
    '',
    `${report.ok} ok, ${report.warn} warn, ${report.blocked} blocked`,
  ];
  const toFix = report.checks.filter((check) => check.finding !== 'ok');
  if (toFix.length > 0) {
    lines.push('', 'What to do:');
    for (const check of toFix) {
      lines.push(`- ${check.name} (${check.finding}): ${check.fix ?? ''}`);
      lines.push(...check.commands.map((command) => `    ${command}`));
    }
  }
  return lines.join('\n');
}
