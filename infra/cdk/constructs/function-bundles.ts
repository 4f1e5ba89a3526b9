/**
 * Every function's bundle, made by one esbuild run per set of bundling options instead of one per
 * function: a run parses the AWS SDK, Powertools and our shared modules once for all its entries,
 * where 24 runs parsed them 24 times (a synthesis of the local stage: 21 s of bundling, 27 CPU-s,
 * against some 3 s). Every module under `functions/` is a function's handler (functions/README.md),
 * so a run bundles them all; each function's asset then takes its own entry's output, through CDK's
 * asset bundling (`local`), which keeps what a synthesis expects of a bundled asset: the hash of
 * the output, and no bundling at all for a stack left out of `aws:cdk:bundling-stacks`.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { AssetHashType } from 'aws-cdk-lib';
import { Code, type Runtime } from 'aws-cdk-lib/aws-lambda';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, buildSync } from 'esbuild';
import { PROJECT_ROOT } from '#infra/project-root';
import { COMPILE_CACHE, type CompileCacheTarget, compileCacheLabel, makeAssetFolders } from './compile-cache.ts';
import { warmUpEvent } from './warm-up-requests.ts';

/**
 * The bundling settings a function's bundle is made with (api-function.ts: LAMBDA_BUNDLING and a
 * route's additions): aws-lambda-nodejs's, and esbuild's `alias` (a module in place of a package's,
 * which aws-lambda-nodejs passes only as a raw `esbuildArgs` entry).
 */
export type FunctionBundling = Pick<
  BundlingOptions,
  | 'format'
  | 'minify'
  | 'sourceMap'
  | 'keepNames'
  | 'externalModules'
  | 'mainFields'
  | 'banner'
  | 'logLevel'
  | 'define'
  | 'inject'
> & { forceDockerBundling?: boolean; alias?: Record<string, string> };

/**
 * The esbuild options a function's bundling settings stand for, as aws-lambda-nodejs derives them
 * (its `buildEsbuildArgs`); a setting this does not map is refused, so none is silently dropped.
 *
 * @example buildSync({ ...esbuildOptions(LAMBDA_BUNDLING, LAMBDA_RUNTIME), entryPoints: ['functions/authorizer.ts'], outfile })
 */
export function esbuildOptions(bundling: FunctionBundling, runtime: Runtime): BuildOptions {
  const {
    format,
    minify,
    sourceMap,
    keepNames,
    externalModules,
    mainFields,
    banner,
    logLevel,
    define,
    inject,
    forceDockerBundling: _local,
    alias,
    ...unmapped
  } = bundling;
  const unknown = Object.keys(unmapped);
  if (unknown.length > 0)
    throw new Error(`function-bundles.ts does not map the bundling setting ${unknown.join(', ')}`);
  const major = /^nodejs(\d+)/.exec(runtime.name)?.[1];
  if (!major) throw new Error(`cannot tell the Node version of runtime ${runtime.name}`);
  return {
    bundle: true,
    platform: 'node',
    target: `node${major}`,
    format,
    minify,
    sourcemap: sourceMap,
    keepNames,
    external: [...(externalModules ?? [])],
    mainFields: mainFields && [...mainFields],
    banner: banner === undefined ? undefined : { js: banner },
    logLevel,
    define,
    inject: inject && [...inject],
    alias,
    // The entry compiles a CommonJS bundle with vm.Script, which has no loader for `import()`: the
    // bundle's own (the AWS SDK's of node:https) become `require`.
    ...(format === 'cjs' && { supported: { 'dynamic-import': false } }),
  };
}

/** Every handler module under functions/, relative to the project root: read once per process. */
let handlers: string[] | undefined;
function handlerModules(): string[] {
  handlers ??= (readdirSync(join(PROJECT_ROOT, 'functions'), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => join('functions', name))
    .sort();
  return handlers;
}

/** One folder per process for the runs' outputs, removed when the process exits. */
let outputRoot: string | undefined;
/** The output folder of each set of options already bundled (its JSON as the key). */
const runs = new Map<string, string>();
/** The asset folder of each run, cache target and entry already made. */
const assetFolders = new Map<string, string>();

/** How many folders outputRoot holds: the next one's name. */
let folderCount = 0;

function newOutputFolder(): string {
  if (!outputRoot) {
    const root = mkdtempSync(join(tmpdir(), 'cxm-function-bundles-'));
    outputRoot = root;
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  }
  return join(outputRoot, String(folderCount++));
}

/** The run's output folder: every handler bundled with `options`, at its module's path. */
function bundledRun(options: BuildOptions): string {
  const key = JSON.stringify(options);
  let outdir = runs.get(key);
  if (!outdir) {
    outdir = newOutputFolder();
    buildSync({
      ...options,
      absWorkingDir: PROJECT_ROOT,
      // Each entry's output at its module's path, the extension Node reads as CommonJS.
      entryPoints: Object.fromEntries(handlerModules().map((module) => [module.replace(/\.ts$/, ''), module])),
      outdir,
      outExtension: { '.js': '.cjs' },
    });
    runs.set(key, outdir);
  }
  return outdir;
}

/**
 * The asset folder of `entry`, made on first use: its cache takes a process of its own, so only the
 * functions a synthesis has get one (a run bundles every handler; a stage uses some runs for two).
 */
function assetFolder(entry: string, options: BuildOptions, cache: CompileCacheTarget): string {
  if (!handlerModules().includes(entry))
    throw new Error(`${entry} is no module under functions/, where every function's entry is`);
  const run = bundledRun(options);
  const key = JSON.stringify([run, cache, entry]);
  let folder = assetFolders.get(key);
  if (!folder) {
    folder = join(newOutputFolder(), entry.replace(/\.ts$/, ''));
    makeAssetFolders(
      [{ bundle: join(run, entry.replace(/\.ts$/, '.cjs')), folder, warmUp: warmUpEvent(entry) }],
      cache,
    );
    assetFolders.set(key, folder);
  }
  return folder;
}

/**
 * The code of the function whose handler module is `entry` (relative to the project root), bundled
 * with `bundling` for `runtime`: its asset holds the entry `index.cjs`, the bundle and the compile
 * cache `cache` says (compile-cache.ts).
 *
 * @example new Function(scope, 'Fn', { runtime, handler: 'index.handler', code: bundledCode('functions/authorizer.ts', LAMBDA_BUNDLING, runtime, compileCacheTarget('dev', 'x64')) })
 */
export function bundledCode(
  entry: string,
  bundling: FunctionBundling,
  runtime: Runtime,
  cache: CompileCacheTarget,
): Code {
  const path = relative(PROJECT_ROOT, join(PROJECT_ROOT, entry));
  const options = esbuildOptions(bundling, runtime);
  return Code.fromAsset(join(PROJECT_ROOT, 'functions'), {
    assetHashType: AssetHashType.OUTPUT,
    // V8 writes a cache differently each time it makes one from the same bundle: the asset's hash
    // is of the entry, the bundle and the cache's description (whom it is for), so an unchanged
    // function is not deployed again.
    exclude: [COMPILE_CACHE],
    bundling: {
      // Never pulled: the local bundling below either makes the bundle or throws.
      image: runtime.bundlingImage,
      // What tells this function's asset from another's of the same folder and settings (CDK caches
      // staged assets by their bundling options).
      command: ['esbuild', path, compileCacheLabel(cache)],
      local: {
        tryBundle(outputDir) {
          cpSync(assetFolder(path, options, cache), outputDir, { recursive: true });
          return true;
        },
      },
    },
  });
}
