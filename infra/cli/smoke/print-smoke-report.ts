/**
 * What `cxm smoke` shows: a line per check while it runs (on a terminal only, on stderr, so it
 * never mixes with the table or the JSON on stdout), then the table or one JSON object.
 */
import type { CliOutput } from '../terminal/cli-io.ts';
import { formatTable } from '../terminal/format-table.ts';
import type { CheckResult } from './run-smoke-checks.ts';

export interface SmokeReport {
  url: string;
  tenant: string;
  checks: CheckResult[];
  passed: number;
  failed: number;
}

export function smokeReport(url: string, tenant: string, checks: CheckResult[]): SmokeReport {
  const passed = checks.filter((check) => check.result === 'pass').length;
  return { url, tenant, checks, passed, failed: checks.length - passed };
}

/** Table cells stay on one line: a long reason is cut (the JSON output has it whole). */
const cut = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 3)}...` : text);

export function formatSmokeReport(report: SmokeReport): string {
  const header = ['CHECK', 'REQUEST', 'STATUS', 'MS', 'RESULT'];
  const rows = report.checks.map((check) => [
    check.name,
    `${check.method} ${cut(check.path, 90)}`,
    check.status === null ? '-' : String(check.status),
    String(check.ms),
    check.result === 'pass'
      ? `pass${check.detail ? `: ${check.detail}` : ''}`
      : `FAIL: ${cut(check.reason ?? '', 140)}`,
  ]);
  return [
    `Smoke test of ${report.url} as tenant ${report.tenant}`,
    '',
    formatTable([header, ...rows]),
    '',
    `${report.passed} passed, ${report.failed} failed`,
  ].join('\n');
}

/** Progress on a terminal: the check running now, on one line that the next one overwrites. */
export function progressLine(stream: CliOutput): { show(text: string): void; clear(): void } {
  const enabled = stream.isTTY === true;
  return {
    show: (text) => enabled && stream.write(`\r\x1b[K${cut(text, (stream.columns || 100) - 1)}`),
    clear: () => enabled && stream.write('\r\x1b[K'),
  };
}
