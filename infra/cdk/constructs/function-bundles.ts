/**
 * Every function's bundle, made by one esbuild run per set of bundling options instead of one per
 * function: a run parses the AWS SDK, Powertools and our shared modules once for all its entries,
 * where 24 runs parsed them 24 times (a synthesis of the local stage: 21 s of bundling, 27 CPU-s,
 * against some 3 s). Every module under `functions/` is a function's handler (functions/README.md),
 * so a run bundles them all; each function's asset then takes its own entry's output, through CDK's
 * asset bundling (`local`), which keeps what a synthesis expects of a bundled asset: the hash of
 * the output, and no bundling at all for a stack left out of `aws:cdk:bundling-stacks`.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { AssetHashType } from 'aws-cdk-lib';
import { Code, type Runtime } from 'aws-cdk-lib/aws-lambda';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, buildSync } from 'esbuild';
import { PROJECT_ROOT } from '#infra/project-root';

/** The bundling settings a function's bundle is made with (api-function.ts: LAMBDA_BUNDLING and a route's additions). */
export type FunctionBundling = Pick<
  BundlingOptions,
  'format' | 'minify' | 'sourceMap' | 'keepNames' | 'externalModules' | 'mainFields' | 'banner' | 'logLevel' | 'define'
> & { forceDockerBundling?: boolean };

/** The file each bundle is, in its asset: the handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';

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
    forceDockerBundling: _local,
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

function bundledFile(entry: string, options: BuildOptions): string {
  if (!handlerModules().includes(entry))
    throw new Error(`${entry} is no module under functions/, where every function's entry is`);
  const key = JSON.stringify(options);
  let outdir = runs.get(key);
  if (!outdir) {
    if (!outputRoot) {
      const root = mkdtempSync(join(tmpdir(), 'cxm-function-bundles-'));
      outputRoot = root;
      process.once('exit', () => rmSync(root, { recursive: true, force: true }));
    }
    outdir = join(outputRoot, String(runs.size));
    buildSync({
      ...options,
      absWorkingDir: PROJECT_ROOT,
      // Each entry's output at its module's path, the extension Lambda reads as ESM.
      entryPoints: Object.fromEntries(handlerModules().map((module) => [module.replace(/\.ts$/, ''), module])),
      outdir,
      outExtension: { '.js': '.mjs' },
    });
    runs.set(key, outdir);
  }
  return join(outdir, entry.replace(/\.ts$/, '.mjs'));
}

/**
 * The code of the function whose handler module is `entry` (relative to the project root), bundled
 * with `bundling` for `runtime`: its asset holds `index.mjs`.
 *
 * @example new Function(scope, 'Fn', { runtime, handler: 'index.handler', code: bundledCode('functions/authorizer.ts', LAMBDA_BUNDLING, runtime) })
 */
export function bundledCode(entry: string, bundling: FunctionBundling, runtime: Runtime): Code {
  const path = relative(PROJECT_ROOT, join(PROJECT_ROOT, entry));
  const options = esbuildOptions(bundling, runtime);
  return Code.fromAsset(join(PROJECT_ROOT, 'functions'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local bundling below either makes the bundle or throws.
      image: runtime.bundlingImage,
      // What tells this function's asset from another's of the same folder and settings (CDK caches
      // staged assets by their bundling options).
      command: ['esbuild', path],
      local: {
        tryBundle(outputDir) {
          mkdirSync(outputDir, { recursive: true });
          copyFileSync(bundledFile(path, options), join(outputDir, BUNDLE_FILE));
          return true;
        },
      },
    },
  });
}
