/**
 * A bench section in a child process (test/bench/run-section-process.ts): it gets the bench's
 * environment, but not the sources runtime's per-invocation mode, which the bench turns on once it
 * has served a gateway and in which Powertools' Logger throws outside an invocation scope (the full
 * bench's warm-overhead section failed so).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_CONCURRENCY_ENV } from '#shared/http/request-logger';
import { runSectionProcess } from '#test/bench/run-section-process';

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a bench section in its own process', () => {
  it("reports its last stdout line as JSON, with the bench's environment less the per-invocation mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cxm-section-'));
    dirs.push(dir);
    const script = join(dir, 'section.ts');
    writeFileSync(
      script,
      `console.log('a line before');\nconsole.log(JSON.stringify({ input: JSON.parse(process.argv[2]!), table: process.env.CXM_SECTION_PROBE ?? null, mode: process.env.${MAX_CONCURRENCY_ENV} ?? null }));\n`,
    );
    vi.stubEnv('CXM_SECTION_PROBE', 'bench-table');
    vi.stubEnv(MAX_CONCURRENCY_ENV, '1000');
    const report = await runSectionProcess<unknown>(process.execPath, [], script, { rounds: 2 }, () => undefined);
    expect(report).toEqual({ input: { rounds: 2 }, table: 'bench-table', mode: null });
  });
});
