// Every function's entry: `index.mjs` of its asset, beside the bundle (`bundle.mjs`) and the V8
// compile cache made for it (`compile-cache/`, infra/cdk/constructs/compile-cache.ts). Plain
// JavaScript, copied as it is: it must run before the bundle is compiled, so the bundle is loaded
// with a dynamic import once the cache is on (a static import would compile first).
//
// It writes the function's init line, one JSON line as Powertools writes them, whose `compileCache`
// a metric filter counts (api-function.ts; the operations guide reads it):
// - accepted: the cache has a folder made for this Node, architecture, V8 flags and uid;
// - rejected: it has none (a runtime update, other flags, another uid): V8 compiles as without it;
// - absent: the asset was built without one.
import { readdirSync, rmSync } from 'node:fs';
import { constants, enableCompileCache, getCompileCacheDir } from 'node:module';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const directory = fileURLToPath(new URL('./compile-cache', import.meta.url));
/** Beside this file in the asset, not in the repository. */
const BUNDLE = './bundle.mjs';

function enableShippedCache() {
  let made = [];
  try {
    made = readdirSync(directory);
  } catch {
    // No folder: absent.
  }
  if (made.length === 0) return { state: 'absent' };
  // Portable: entries are keyed by the bundle's path relative to the cache, the same in any task root.
  const { status, message } = enableCompileCache({ directory, portable: true });
  const used = status === constants.compileCacheStatus.ENABLED ? getCompileCacheDir() : undefined;
  if (used && made.includes(basename(used))) return { state: 'accepted', folder: basename(used) };
  // Lambda's task root is read-only, so there Node fails to make a folder of its own; where it is
  // writable (bundle mode), the folder it made is removed, and the asset stays as it was built.
  if (used) rmSync(used, { recursive: true, force: true });
  return {
    state: 'rejected',
    made: made.join(', '),
    runtime: used ? basename(used) : `${process.version}-${process.arch}, uid ${process.getuid?.()}`,
    ...(message && { reason: message }),
  };
}

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];
const compileCache = enableShippedCache();
const level = compileCache.state === 'accepted' ? 'INFO' : 'WARN';
const threshold = LEVELS.indexOf(process.env.POWERTOOLS_LOG_LEVEL?.toUpperCase() ?? 'INFO');
// Not console.log: Lambda's text format would put a prefix before the JSON the metric filter reads.
if (LEVELS.indexOf(level) >= threshold)
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

export const { handler } = await import(BUNDLE);
