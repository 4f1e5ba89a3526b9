/**
 * `cxm import`'s work on a file of any size, in two streaming passes (read-import-file.ts), so the
 * file is never whole in memory: the first checks every entry (a bad file changes nothing), counts
 * the items and hashes the bytes; the second reads it again and writes (write-import.ts). While it
 * writes, a checkpoint (import-checkpoint.ts) records how many leading items are stored, so that
 * after a failure, Ctrl-C or a crash, `--resume` continues from there instead of starting over.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { type ImportWrite, importChecker } from '#infra/tenant-data/check-import-entry';
import { emptySummary, type ImportSummary } from '#infra/tenant-data/import-data';
import { type ImportStores, writeImport } from '#infra/tenant-data/write-import';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import type { CliSignal } from '../terminal/cli-io.ts';
import { countProgress, progressOn } from '../terminal/count-progress.ts';
import {
  checkpointPath,
  type ImportCheckpoint,
  readCheckpoint,
  removeCheckpoint,
  saveCheckpoint,
} from './import-checkpoint.ts';
import { readImportFile } from './read-import-file.ts';

export interface ImportRun {
  /** The file's absolute path. */
  file: string;
  /** As the operator named it, for messages. */
  shownAs: string;
  tenant: string;
  /** Where the stores point, for messages (CliStores.target). */
  target: string;
  /**
   * The target as the checkpoint's key: `stage <name>`, or `local stack` (its checkpoints live in
   * its own CXM_HOME, whatever port it serves on after a restart).
   */
  targetKey: string;
  stores: ImportStores;
  resume: boolean;
}

/** The checkpoint is rewritten at most this often while items commit (and at every stop). */
const SAVE_EVERY_MS = 1_000;

interface FileIdentity {
  size: number;
  mtimeMs: number;
}

function identity(file: string, shownAs: string): FileIdentity {
  try {
    const stat = statSync(file);
    if (!stat.isFile())
      throw Object.assign(new Error('not a file'), { code: stat.isDirectory() ? 'EISDIR' : 'not a file' });
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (error) {
    throw new CliError(`cannot read ${shownAs}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** The first pass: every entry checked; the items per member and the file's SHA-256. */
async function checkFile(
  cli: CliContext,
  run: ImportRun,
  size: number,
): Promise<{ summary: ImportSummary; items: number; sha256: string }> {
  const check = importChecker(run.tenant);
  const hash = createHash('sha256');
  const summary = emptySummary();
  let bytes = 0;
  const progress = countProgress({ label: 'checking', unit: 'bytes', total: size, ...progressOn(cli.stderr) });
  for await (const entry of readImportFile(run.file, (chunk) => {
    hash.update(chunk);
    bytes += chunk.length;
  })) {
    const write = check(entry);
    if (write) summary[write.member]++;
    progress.update(bytes);
  }
  progress.finish();
  const items = Object.values(summary).reduce((sum, n) => sum + n, 0);
  return { summary, items, sha256: hash.digest('hex') };
}

/** The second pass's writes: the file read again, each item shaped as the first pass checked it. */
async function* writesIn(run: ImportRun): AsyncGenerator<ImportWrite> {
  const check = importChecker(run.tenant, { duplicates: false });
  for await (const entry of readImportFile(run.file)) {
    const write = check(entry);
    if (write) yield write;
  }
}

const resumeHint = 'run the same command with --resume to continue from there';

/**
 * Imports the file of `run` for the CLI run `cli`: its progress and notes on the run's stderr, its
 * checkpoint in the run's state directory. Ctrl-C or SIGTERM saves the checkpoint and ends the run
 * with 130 or 143.
 *
 * @example const { summary } = await runImport(cli, { file, shownAs: 'data.json', tenant, target, targetKey: 'local stack', stores, resume: false });
 */
export async function runImport(
  cli: CliContext,
  run: ImportRun,
): Promise<{ summary: ImportSummary; resumedAt: number }> {
  const { size, mtimeMs } = identity(run.file, run.shownAs);
  const where = `into tenant ${run.tenant} on the ${run.target}`;
  const path = checkpointPath(run.file, run.tenant, run.targetKey, cli.home);
  const earlier = readCheckpoint(path);
  if (run.resume) {
    if (!earlier) {
      throw new CliError(
        `nothing to resume: no interrupted import of ${run.shownAs} ${where} (no checkpoint ${path}); run the command without --resume to import from the start`,
      );
    }
    if (earlier.size !== size || earlier.mtimeMs !== mtimeMs) {
      throw new CliError(
        `${run.shownAs} changed since the interrupted import (size or modification time differ); run the command without --resume to import it from the start`,
      );
    }
  } else if (earlier) {
    cli.warn(
      `An interrupted import of this file ${where} had stored ${earlier.stored} of ${earlier.items} items; starting over (--resume would continue it).`,
    );
  }

  const { summary, items, sha256 } = await checkFile(cli, run, size);
  if (run.resume && earlier!.sha256 !== sha256) {
    throw new CliError(
      `${run.shownAs} changed since the interrupted import (its content differs); run the command without --resume to import it from the start`,
    );
  }
  const now = identity(run.file, run.shownAs);
  if (now.size !== size || now.mtimeMs !== mtimeMs)
    throw new CliError(`${run.shownAs} changed while it was being checked; nothing was written`);

  const resumedAt = run.resume ? Math.min(earlier!.stored, items) : 0;
  const checkpoint: ImportCheckpoint = {
    file: run.file,
    size,
    mtimeMs,
    sha256,
    tenant: run.tenant,
    target: run.targetKey,
    items,
    stored: resumedAt,
    updatedAt: '',
  };
  const save = () => saveCheckpoint(path, { ...checkpoint, updatedAt: new Date().toISOString() });
  save();

  let throttled = 0;
  const progress = countProgress(
    {
      label: 'importing',
      unit: 'items',
      total: items,
      ...progressOn(cli.stderr),
      detail: () => (throttled > 0 ? `${throttled} writes throttled and retried` : undefined),
    },
    resumedAt,
  );
  let savedAt = performance.now();
  const stopListening = cli.onInterrupt((signal: CliSignal) => {
    save();
    cli.warn(`\ncxm: ${signal}: stopped after ${checkpoint.stored} of ${items} items were stored; ${resumeHint}.`);
    cli.exit(signal === 'SIGINT' ? 130 : 143);
  });
  try {
    await writeImport(run.tenant, writesIn(run), run.stores, {
      skip: resumedAt,
      onThrottled: () => throttled++,
      onCommitted: (stored) => {
        checkpoint.stored = stored;
        progress.update(stored);
        if (performance.now() - savedAt >= SAVE_EVERY_MS) {
          savedAt = performance.now();
          save();
        }
      },
    });
  } catch (error) {
    save();
    progress.finish();
    const reason = (error as Error).message || (error as NodeJS.ErrnoException).code || String(error);
    throw new CliError(
      `the import stopped after ${checkpoint.stored} of ${items} items were stored (${reason}); ${resumeHint}`,
      { cause: error },
    );
  } finally {
    stopListening();
  }
  removeCheckpoint(path);
  progress.finish(resumedAt > 0 ? `resumed after item ${resumedAt}` : undefined);
  return { summary, resumedAt };
}
