/**
 * The performance page (test/performance.md): what `npm run bench` measured in its latest full run,
 * written by the bench itself so that no figure in the guides is kept by hand. It holds when and
 * where the run was made, every goal with its figure, why each missed goal is missed
 * (unmet-goals.ts), and the whole printed report.
 */
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { type BenchReport, formatReport, goals } from './print-table.ts';
import { whyUnmet } from './unmet-goals.ts';

/** Where the page lives, from the project's root. */
export const PERFORMANCE_PAGE = 'test/performance.md';

/** When and where a run was made. */
export interface BenchRun {
  startedAt: Date;
  seconds: number;
}

/** The machine as the page names it: CPU model, cores, memory. */
function machine(): string {
  const cores = cpus();
  const gib = (totalmem() / 1024 ** 3).toFixed(0);
  return `${cores[0]?.model.trim() ?? 'unknown CPU'}, ${cores.length} cores, ${gib} GiB, ${process.platform} ${process.arch}`;
}

const figure = (value: number) => (Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4))));

/** Every goal of the run: its figure, its limit, met or not. */
function goalTable(report: BenchReport): string {
  const rows = goals(report).map(
    ({ name, goal }) =>
      `| ${name} | ${figure(goal.value)} | ${goal.kind === 'max' ? 'at most' : 'at least'} ${figure(goal.limit)} | ${goal.met ? 'met' : '**not met**'} |`,
  );
  return ['| goal | measured | goal | |', '|---|---|---|---|', ...rows].join('\n');
}

const NO_REASON = 'no reason is written yet (test/bench/unmet-goals.ts).';

/** The missed goals grouped by why they are missed, those without a reason last. */
function unmetSection(report: BenchReport): string {
  const missed = goals(report).filter(({ goal }) => !goal.met);
  if (missed.length === 0) return 'Every goal of the run was met.';
  const byReason = new Map<string, string[]>();
  for (const { name } of missed) {
    const why = whyUnmet(name) ?? NO_REASON;
    byReason.set(why, [...(byReason.get(why) ?? []), name]);
  }
  const groups = [...byReason].sort(([a], [b]) => Number(a === NO_REASON) - Number(b === NO_REASON));
  return groups.map(([why, names]) => `- **${names.join(', ')}**: ${why}`).join('\n');
}

/**
 * The page for `report`, the run of `run`.
 *
 * @example writeFileSync(PERFORMANCE_PAGE, performancePage(report, { startedAt, seconds: 1200 }));
 */
export function performancePage(report: BenchReport, run: BenchRun): string {
  return [
    '# Performance',
    '',
    'Written by `npm run bench` from its latest full run (every section, not `--quick`); not edited by hand.',
    'How the bench measures, and how to run it: [test/README.md](README.md#the-bench).',
    '',
    `- Run: ${run.startedAt.toISOString()}, ${Math.round(run.seconds / 60)} minutes`,
    `- Machine: ${machine()}`,
    `- Node: functions on ${report.node.version}${report.node.pinned ? " (Lambda's, pinned)" : ''}, the bench on ${report.node.benchVersion}`,
    '',
    '## Goals',
    '',
    goalTable(report),
    '',
    '## Why the goals not met are not met',
    '',
    unmetSection(report),
    '',
    '## Every row',
    '',
    '```text',
    formatReport(report).trimEnd(),
    '```',
    '',
  ].join('\n');
}

/**
 * Writes the page of a full run into the project.
 *
 * @example writePerformancePage(report, { startedAt: new Date(startedAtMs), seconds });
 */
export function writePerformancePage(report: BenchReport, run: BenchRun): string {
  const path = join(PROJECT_ROOT, PERFORMANCE_PAGE);
  writeFileSync(path, performancePage(report, run));
  return path;
}
