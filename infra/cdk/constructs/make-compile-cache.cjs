// Makes the V8 code cache of function assets (compile-cache.ts runs it on the stage's pinned Node,
// with Lambda's options): `node make-compile-cache.cjs <asset folder>...`. With one folder it loads
// that asset's entry, which compiles and runs the bundle, has it answer the warm-up request in
// `<folder>.warm-up.json` if there is one (warm-up-requests.ts), and writes what V8 compiled
// meanwhile to the folder's bundle.cache; with several, it runs itself once per folder, as many at
// a time as there are cores, since each asset must be loaded in a process of its own.
'use strict';
const { execFile } = require('node:child_process');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { availableParallelism } = require('node:os');
const { join } = require('node:path');
const { promisify } = require('node:util');

const folders = process.argv.slice(2);

/** Lambda's context for the warm-up: the chain arms its deadline from the time left. */
const CONTEXT = {
  functionName: 'compile-cache-warm-up',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:compile-cache-warm-up',
  memoryLimitInMB: '1024',
  awsRequestId: 'compile-cache-warm-up',
  logGroupName: 'compile-cache-warm-up',
  logStreamName: 'compile-cache-warm-up',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 5_000,
  done() {},
  fail() {},
  succeed() {},
};

async function warmUp(entry, folder) {
  const file = `${folder}.warm-up.json`;
  if (!existsSync(file)) return;
  try {
    await entry.handler(JSON.parse(readFileSync(file, 'utf8')), CONTEXT);
  } catch {
    // An answer or an error: the code on the way to either is what the cache takes.
  }
}

async function makeOne(folder) {
  const entry = require(join(folder, 'index.cjs'));
  // What the bundle set going at load (a list's search client) runs before the request.
  await new Promise((resolve) => setImmediate(resolve));
  await warmUp(entry, folder);
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
