// Makes the V8 compile cache of function assets (compile-cache.ts runs it on the stage's pinned
// Node, with Lambda's options): `node make-compile-cache.mjs <asset folder>...`. With one folder it
// compiles that folder's bundle.mjs into its compile-cache/ and prints the folder Node wrote; with
// several, it runs itself once per folder, as many at a time as there are cores, since a process
// has one compile cache.
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const folders = process.argv.slice(2);

async function makeOne(folder) {
  const module = await import('node:module');
  // The options function-entry.mjs enables the cache with, so the entries' keys are the same.
  const { message } = module.enableCompileCache({ directory: join(folder, 'compile-cache'), portable: true });
  const made = module.getCompileCacheDir();
  if (!made) throw new Error(`no compile cache in ${folder}: ${message}`);
  try {
    await import(pathToFileURL(join(folder, 'bundle.mjs')).href);
  } catch {
    // The cache holds what V8 compiled before the module ran; running it needs the function's
    // environment (its tables), which a build has not. Compiling is what counts.
  }
  module.flushCompileCache();
  process.stdout.write(`${made}\n`);
}

async function makeAll() {
  const run = promisify(execFile);
  const queue = [...folders];
  const worker = async () => {
    for (let folder = queue.shift(); folder; folder = queue.shift()) {
      const { stdout } = await run(process.execPath, [...process.execArgv, process.argv[1], folder], {
        env: {},
        timeout: 60_000,
      });
      process.stdout.write(stdout);
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), folders.length) }, worker));
}

await (folders.length === 1 ? makeOne(folders[0]) : makeAll());
// A bundle that ran may have left timers or sockets behind.
process.exit(0);
