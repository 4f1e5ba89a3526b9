// Every function's entry: `index.cjs` of its asset, beside the bundle (`bundle.cjs`) and V8's code
// cache for it (`bundle.cache`, made at synthesis by compile-cache.ts). Plain JavaScript, copied as
// it is. It compiles the bundle as Node compiles a CommonJS module, but with the cache, which holds
// the bytecode of every function the bundle ran while it was loaded, so a new environment neither
// parses nor compiles them.
//
// It writes the function's init line, one JSON line as Powertools writes them, whose `compileCache`
// a metric filter counts (api-function.ts; the deploying guide says how to read it):
// - accepted: V8 took the cache;
// - rejected: V8 refused it (another Node or V8 flags than it was made with): it compiled as
//   without one, and the line names both;
// - absent: the asset was built without one.
'use strict';
const { readFileSync } = require('node:fs');
const { createRequire, wrap } = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const BUNDLE = join(__dirname, 'bundle.cjs');
const CACHE = join(__dirname, 'bundle.cache');
const DESCRIPTION = join(__dirname, 'compile-cache.json');
const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];

function readIfThere(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Compiles and runs the bundle as a CommonJS module, with the cache when there is one. */
function loadBundle(cachedData) {
  // The bundle has no `import()` for vm.Script to resolve: esbuild made them `require` (function-bundles.ts).
  const script = new Script(wrap(readFileSync(BUNDLE, 'utf8')), { filename: BUNDLE, cachedData });
  const bundle = { exports: {} };
  script.runInThisContext().call(bundle.exports, bundle.exports, createRequire(BUNDLE), bundle, BUNDLE, __dirname);
  return { script, exports: bundle.exports };
}

function describeCache(cachedData, script) {
  if (!cachedData) return { state: 'absent' };
  if (!script.cachedDataRejected) return { state: 'accepted' };
  const made = JSON.parse(readIfThere(DESCRIPTION) ?? '{}');
  return {
    state: 'rejected',
    made: [made.node, ...(made.options ?? [])].join(' '),
    runtime: [process.version, ...process.execArgv].join(' '),
  };
}

function writeInitLine(compileCache) {
  const level = compileCache.state === 'accepted' ? 'INFO' : 'WARN';
  const threshold = LEVELS.indexOf(process.env.POWERTOOLS_LOG_LEVEL?.toUpperCase() ?? 'INFO');
  if (LEVELS.indexOf(level) < threshold) return;
  // Not console.log: Lambda's text format would put a prefix before the JSON the metric filter reads.
  process.stdout.write(
    `${JSON.stringify({
      level,
      message: 'init',
      timestamp: new Date().toISOString(),
      service: process.env.POWERTOOLS_SERVICE_NAME,
      stage: process.env.CXM_STAGE,
      function_name: process.env.AWS_LAMBDA_FUNCTION_NAME,
      compileCache,
    })}\n`,
  );
}

const cachedData = readIfThere(CACHE);
const { script, exports: bundle } = loadBundle(cachedData);
writeInitLine(describeCache(cachedData, script));

exports.handler = bundle.handler;
// For the cache's maker (make-compile-cache.cjs), which writes what V8 compiled once the bundle ran.
exports.bundleScript = script;
