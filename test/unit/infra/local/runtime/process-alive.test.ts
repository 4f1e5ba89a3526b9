/** Whether a maker process still runs: this one does, a finished one does not, a torn pid names none. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '#infra/local/runtime/process-alive';

describe('isProcessAlive', () => {
  it('this process runs; a process that has exited does not', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const done = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(isProcessAlive(Number(done.stdout))).toBe(false);
  });

  it.each([0, -1, Number.NaN, Number(''), 1.5])('%s, as a torn or empty pid file reads, names no process', (pid) => {
    expect(isProcessAlive(pid)).toBe(false);
  });
});
