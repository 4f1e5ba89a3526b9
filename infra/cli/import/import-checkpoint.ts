/**
 * Where an interrupted `cxm import` stopped, so `--resume` continues instead of starting over: a
 * small JSON file in `$CXM_HOME/imports/`, one per import file (by absolute path), tenant and
 * target, holding how many items of the file (in file order) are stored, and the file's identity
 * (size, modification time, SHA-256 of its bytes) so that a file changed since is never resumed.
 * It lives in the state directory rather than beside the import file, which may sit on a
 * read-only share; it is written atomically (temporary file, then rename) so a crash mid-write
 * leaves the previous one, and removed when the import completes.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ImportCheckpoint {
  /** The import file's absolute path, for people reading the checkpoint. */
  file: string;
  size: number;
  mtimeMs: number;
  /** Of the whole file, computed while it was checked. */
  sha256: string;
  tenant: string;
  target: string;
  /** Items in the file (array elements of every member). */
  items: number;
  /** Leading items (file order) that are stored: a resumed import skips exactly these. */
  stored: number;
  updatedAt: string;
}

/**
 * The checkpoint of an import of `absoluteFile` into `tenant` on `target`, in the state directory `home`.
 *
 * @example checkpointPath('/data/acme.json', 'acme', 'local stack', cli.home) // <home>/imports/<32 hex>.json
 */
export function checkpointPath(absoluteFile: string, tenant: string, target: string, home: string): string {
  const key = createHash('sha256')
    .update(JSON.stringify([absoluteFile, tenant, target]))
    .digest('hex')
    .slice(0, 32);
  return join(home, 'imports', `${key}.json`);
}

export function readCheckpoint(path: string): ImportCheckpoint | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return JSON.parse(text) as ImportCheckpoint;
}

export function saveCheckpoint(path: string, checkpoint: ImportCheckpoint): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(checkpoint, null, 2)}\n`);
  renameSync(temporary, path);
}

export function removeCheckpoint(path: string): void {
  rmSync(path, { force: true });
}
