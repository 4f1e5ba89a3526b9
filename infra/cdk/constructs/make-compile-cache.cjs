// Makes the V8 code cache of function assets (compile-cache.ts runs it on the stage's pinned Node,
// with Lambda's options): `node make-compile-cache.cjs <asset folder>...`. With one folder it loads
// that asset's entry, which compiles and runs the bundle, and writes what V8 compiled meanwhile
// to the folder's bundle.cache; with several, it runs itself once per folder, as many at a time as
// there are cores, since each asset must be loaded in a process of its own.
'use strict';
const { execFile } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const { availableParallelism } = require('node:os');
const { join } = require('node:path');
const { promisify } = require('node:util');

const folders = process.argv.slice(2);

async function makeOne(folder) {
  const entry = require(join(folder, 'index.cjs'));
  // What the bundle set going at load (a list's search client) runs before the cache is taken.
  await new Promise((resolve) => setImmediate(resolve));
  writeFileSync(join(folder, 'bundle.cache'), entry.bundleScript.createCachedData());
}

async function makeAll() {
  const run = promisify(execFile);
  const queue = [...folders];
  const worker = async () => {
    for (let folder = queue.shift(); folder; folder = queue.shift()) {
      try {
        await run(process.execPath, [...process.execArgv, __filename, folder], { timeout: 60_000 });
      } catch (error) {
        throw new Error(`no compile cache for ${folder}: its bundle failed to load\n${error.stderr ?? error}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), folders.length) }, worker));
}

// Exits once done: a bundle that ran may have left timers or sockets behind.
(folders.length === 1 ? makeOne(folders[0]) : makeAll()).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);
