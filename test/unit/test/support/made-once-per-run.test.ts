/** The run's shared folders: made once whoever asks, a dead maker's claim taken over, a failure told to every waiter. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { madeOncePerRun } from '#test/support/made-once-per-run';

const fill = (made: string[]) => async (name: string, dir: string) => {
  made.push(name);
  await new Promise((resolve) => setTimeout(resolve, 20));
  mkdirSync(dir);
  writeFileSync(join(dir, 'what'), name);
};

describe('madeOncePerRun', () => {
  it('makes each folder once for callers asking at the same time, and answers every one of them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cxm-once-'));
    const made: string[] = [];
    const [first, second] = await Promise.all([
      madeOncePerRun(root, ['dev', 'lite'], fill(made)),
      madeOncePerRun(root, ['lite', 'dev'], fill(made)),
    ]);
    expect(made.sort()).toEqual(['dev', 'lite']);
    expect(first.get('dev')).toBe(second.get('dev'));
    expect(readFileSync(join(first.get('lite')!, 'what'), 'utf8')).toBe('lite');
    expect(readdirSync(root).sort()).toEqual(['dev', 'lite']);
  });

  it('takes over the claim of a process that died, and makes the folder itself', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cxm-once-'));
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    mkdirSync(join(root, 'dev.claim'));
    writeFileSync(join(root, 'dev.claim', 'pid'), dead.stdout);
    const made: string[] = [];
    const dirs = await madeOncePerRun(root, ['dev'], fill(made));
    expect(made).toEqual(['dev']);
    expect(readFileSync(join(dirs.get('dev')!, 'what'), 'utf8')).toBe('dev');
  });

  it('takes over a claim that holds no pid (its maker died making it), rather than waiting on it forever', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cxm-once-'));
    mkdirSync(join(root, 'dev.claim'));
    const made: string[] = [];
    await madeOncePerRun(root, ['dev'], fill(made));
    expect(made).toEqual(['dev']);
  });

  it('a failed making is told, with its reason, to the maker and to every caller waiting on it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cxm-once-'));
    const failing = async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      throw new Error('synthesis failed: no such stage');
    };
    const [maker, waiter] = await Promise.allSettled([
      madeOncePerRun(root, ['dev'], failing),
      madeOncePerRun(root, ['dev'], fill([])),
    ]);
    expect(maker).toMatchObject({ status: 'rejected', reason: { message: 'synthesis failed: no such stage' } });
    expect(waiter).toMatchObject({ status: 'rejected' });
    expect(String((waiter as PromiseRejectedResult).reason)).toMatch(
      /making dev for this run failed in another test file:[\s\S]*synthesis failed: no such stage/,
    );
  });
});
