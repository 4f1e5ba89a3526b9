/**
 * `runCli`, the CLI as a function: what it writes goes to the run's outputs, what it reads comes
 * from the run's environment and directory, failures are exit codes, and an interruption ends the
 * run with the code its command chose. None of these runs reaches a store.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '#infra/cli/run-cli';
import { createCliContext } from '#infra/cli/terminal/cli-context';
import type { CliEnv, CliIo, CliSignal } from '#infra/cli/terminal/cli-io';

afterEach(() => vi.unstubAllEnvs());

/** An io whose outputs are kept; not a terminal. */
function io(env: CliEnv = {}, cwd = tmpdir()): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
    cwd,
  };
}

describe('runCli', () => {
  it("writes a command's answer to the run's stdout and resolves its paths against the run's directory, two runs at once each in its own", async () => {
    const [first, second] = [
      io({}, mkdtempSync(join(tmpdir(), 'cxm-run-a-'))),
      io({}, mkdtempSync(join(tmpdir(), 'cxm-run-b-'))),
    ];
    const codes = await Promise.all([
      runCli(['recordings', 'sample', 'tone.wav', '--tone', '--seconds', '1'], first),
      runCli(['recordings', 'sample', 'tone.wav', '--tone', '--seconds', '2'], second),
    ]);
    expect(codes).toEqual([0, 0]);
    expect(first.out.join('')).toMatch(/^Wrote tone\.wav: 1 s of audio\/wav \(a mono tone\), \d+ bytes\.\n$/);
    expect(second.out.join('')).toMatch(/^Wrote tone\.wav: 2 s of audio\/wav/);
    expect(readFileSync(join(first.cwd, 'tone.wav')).length).toBeLessThan(
      readFileSync(join(second.cwd, 'tone.wav')).length,
    );
    expect([...first.err, ...second.err]).toEqual([]);
  });

  it("answers a usage error with commander's code and message on the run's stderr, and a command's refusal with one line and 1", async () => {
    const usage = io();
    expect(await runCli(['keys', 'create', '--scope', 'cxm:*'], usage)).toBe(1);
    expect(usage.err.join('')).toMatch(/^error: required option '--tenant <id>' not specified\n/);
    expect(usage.out).toEqual([]);

    const refused = io();
    expect(await runCli(['seed', '--tenant', 'acme', '--days', '0'], refused)).toBe(1);
    expect(refused.err).toEqual(["cxm: --days '0' must be a whole number from 1 to 3650\n"]);
  });

  it("finds the local stack in the run's CXM_HOME, relative to the run's directory", async () => {
    vi.stubEnv('CXM_HOME', '/nonexistent-process-home');
    const run = io({ CXM_HOME: 'state' }, mkdtempSync(join(tmpdir(), 'cxm-run-home-')));
    expect(await runCli(['keys', 'list'], run)).toBe(1);
    expect(run.err).toEqual([
      expect.stringContaining(`no local stack found (${join(run.cwd, 'state', 'local.json')} is missing)`),
    ]);
  });

  it("reads CXM_KEY from the run's environment, not the process's", async () => {
    vi.stubEnv('CXM_KEY', 'cxm_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb');
    const run = io();
    expect(await runCli(['smoke', '--url', 'http://127.0.0.1:9', '--tenant', 'acme'], run)).toBe(1);
    expect(run.err).toEqual([expect.stringMatching(/^cxm: --url needs --key <key> \(or CXM_KEY\)/)]);
  });
});

describe("a run's interruptions", () => {
  it('reach the listener of the run until it stops listening; its exit code ends the run', async () => {
    const signals = new EventEmitter<Record<CliSignal, [CliSignal]>>();
    const { cli, exited, close } = createCliContext({ ...io(), signals });
    const heard: CliSignal[] = [];
    const stopListening = cli.onInterrupt((signal) => {
      heard.push(signal);
      cli.exit(130);
    });
    signals.emit('SIGINT', 'SIGINT');
    expect(await exited).toBe(130);
    stopListening();
    signals.emit('SIGTERM', 'SIGTERM');
    expect(heard).toEqual(['SIGINT']);
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
    close();
  });
});
