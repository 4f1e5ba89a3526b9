/**
 * Folders a test run makes once and shares between its test files, whichever file asks first (a
 * stage's synthesized cloud assembly: test/support/stage-templates.ts). The files run in separate
 * processes, so they agree through the run's folder: a name is claimed by renaming a folder holding
 * the claimer's pid to `<name>.claim` (one process wins), made under a temporary name and renamed
 * into place when complete, and awaited by every other process that asks for it. A maker that
 * fails leaves `<name>.error`, which its waiters throw; a claim whose process is gone is taken over.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive } from '#infra/local/runtime/process-alive';

/** Fills `dir` (which does not exist yet) with what `name` stands for. */
export type MakeFolder = (name: string, dir: string) => void | Promise<void>;

const POLL_MS = 100;

const madePath = (root: string, name: string) => join(root, name);
const claimPath = (root: string, name: string) => join(root, `${name}.claim`);
const errorPath = (root: string, name: string) => join(root, `${name}.error`);

/**
 * Claims `name` for this process: the claim is made whole under a name of its own, its pid inside,
 * and renamed into place, so no process ever sees a claim without the pid that tells whether its
 * maker is alive. Renaming onto a claim that exists fails: another process won.
 */
function claim(root: string, name: string): boolean {
  const pending = join(root, `${name}.claim-${process.pid}-${randomUUID()}`);
  mkdirSync(pending);
  writeFileSync(join(pending, 'pid'), String(process.pid));
  try {
    renameSync(pending, claimPath(root, name));
    return true;
  } catch (error) {
    rmSync(pending, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw error;
  }
}

async function makeClaimed(root: string, name: string, make: MakeFolder): Promise<void> {
  const staging = join(root, `${name}.tmp-${process.pid}`);
  try {
    // Made meanwhile by the process whose claim this one followed.
    if (existsSync(madePath(root, name))) return;
    await make(name, staging);
    try {
      renameSync(staging, madePath(root, name));
    } catch (error) {
      // Two takers of an abandoned claim: the first one's folder stands.
      if (!existsSync(madePath(root, name))) throw error;
      rmSync(staging, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    writeFileSync(errorPath(root, name), error instanceof Error ? (error.stack ?? error.message) : String(error));
    throw error;
  } finally {
    release(root, name);
  }
}

/**
 * Gives the claim up: renamed out of the way first, so no other process sees it half deleted (an
 * empty folder, which a rename onto it would replace) while it goes.
 */
function release(root: string, name: string): void {
  const gone = join(root, `${name}.released-${process.pid}-${randomUUID()}`);
  try {
    renameSync(claimPath(root, name), gone);
  } catch {
    return;
  }
  rmSync(gone, { recursive: true, force: true });
}

/** Whether the claim's process is gone (a claim always holds its pid: one without is no one's). */
function abandoned(root: string, name: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(claimPath(root, name), 'pid'), 'utf8'));
  } catch (error) {
    // Released between the look and the read: not abandoned, gone.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || existsSync(claimPath(root, name));
  }
  return !isProcessAlive(pid);
}

async function awaitMade(root: string, name: string, make: MakeFolder): Promise<string> {
  for (;;) {
    if (existsSync(madePath(root, name))) return madePath(root, name);
    if (existsSync(errorPath(root, name)))
      throw new Error(
        `making ${name} for this run failed in another test file:\n${readFileSync(errorPath(root, name), 'utf8')}`,
      );
    if (!existsSync(claimPath(root, name)) || abandoned(root, name)) {
      if (existsSync(claimPath(root, name))) release(root, name);
      if (claim(root, name)) await makeClaimed(root, name, make);
      continue;
    }
    await sleep(POLL_MS);
  }
}

/**
 * The folders of `names` under `root` (the run's folder), each made once per run: `make` fills,
 * in this process and one after the other, those that no other process has claimed, then the
 * others are awaited. Answers each name's folder.
 *
 * @example
 * const dirs = await madeOncePerRun(inject('stageAssemblies'), ['dev', 'lite'], synthesizeVariant);
 */
export async function madeOncePerRun(
  root: string,
  names: readonly string[],
  make: MakeFolder,
): Promise<Map<string, string>> {
  for (const name of names.filter((candidate) => !existsSync(madePath(root, candidate)) && claim(root, candidate)))
    await makeClaimed(root, name, make);
  const dirs = await Promise.all(names.map(async (name) => [name, await awaitMade(root, name, make)] as const));
  return new Map(dirs);
}
