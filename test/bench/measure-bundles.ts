/**
 * `bundles`: every function's bundle, built with the stack's own esbuild settings (LAMBDA_BUNDLING
 * as function-bundles.ts maps it, through esbuild's API rather than a synth), against the baseline
 * bundle. The baseline and the peers' bundles (test/bench/peers, for the cold-start section) are
 * built plain, minified as anyone would bundle a handler, so that what our settings add beyond that
 * (keepNames) counts against our functions. Two probes, each the baseline plus one thing, tell what
 * that thing costs every function: every generated validator, and the stack's own settings.
 *
 * Each of our functions is also laid out as the stack ships it (compile-cache.ts): the entry, the
 * bundle and the compile cache made for this machine's user; and again without the cache, for the
 * cold-start section's rows with and without it.
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { OPENAPI_DOCUMENT_OPERATION } from '#infra/cdk/constructs/api-docs';
import { LAMBDA_BUNDLING, LAMBDA_RUNTIME } from '#infra/cdk/constructs/api-function';
import { compileCacheTarget, ENTRY_MODULE, makeAssetFolders } from '#infra/cdk/constructs/compile-cache';
import { esbuildOptions, type FunctionBundling } from '#infra/cdk/constructs/function-bundles';
import { routeBundling } from '#infra/cdk/constructs/route-bundling';
import { warmUpEvent } from '#infra/cdk/constructs/warm-up-requests';
import { PROJECT_ROOT } from '#infra/project-root';
import { LOCAL_STAGE } from '#infra/stage-names';
import { AUTHORIZER_HANDLER, OPENAPI_DOCUMENT_HANDLER, type RouteSpec } from '#shared/api/route-spec';
import { routes } from '#shared/api/route-table';
import { RECORDING_PROCESSOR } from '#shared/recording-events';
import { REPORTING_INDEXER } from '#shared/reporting/reporting-indexer';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { WEBHOOK_DELIVERY, WEBHOOK_FAN_OUT, WEBHOOK_SWEEP } from '#shared/webhook-functions';
import { round } from './bench-stats.ts';
import { packageOf } from './cpu-profile-summary.ts';
import { PEER_HANDLERS } from './peers/peer-handlers.ts';

/** What a bundle serves, which decides its cold-start goal. */
export type BundleKind =
  | 'baseline'
  | 'probe'
  | 'api'
  | 'reporting-opensearch'
  | 'mcp'
  | 'authorizer'
  | 'stream'
  | 'peer';

export interface BuiltBundle {
  name: string;
  kind: BundleKind;
  /** Entry module relative to the project root (or a description, for generated entries). */
  entry: string;
  file: string;
  bytes: number;
  /** Bytes of the bundle by origin: npm package, or `project` for our own modules. */
  contents: Record<string, number>;
  /** Bytes of the generated validators module in this bundle. */
  validatorBytes: number;
  /** Peers only: the framework packages it adds, with their installed versions. */
  packages?: Record<string, string>;
  /** What the function's environment adds to the bench's (a stage setting the bundle was built for). */
  environment?: Record<string, string>;
  /** A reporting list (its cold-request goal is a list's). */
  list?: true;
  /** Our functions: the entry (`index.cjs`) of the asset as shipped, and of the same asset without its compile cache. */
  assets?: { cached: string; uncached: string };
}

export interface BundlesReport {
  baseline: { bytes: number };
  functions: Array<{
    function: string;
    entry: string;
    bytes: number;
    ratio: number;
    validatorBytes: number;
    largest: Record<string, number>;
  }>;
}

interface BundleSource {
  name: string;
  kind: BundleKind;
  entry: string;
  /** Generated entry source (TypeScript, resolved from the project root) instead of a file. */
  contents?: string;
  packages?: readonly string[];
  /** What the stack bundles this function with beyond the common settings (route-bundling.ts). */
  bundling?: Partial<FunctionBundling>;
  /** Built as anyone would bundle a handler (minified, no keepNames), not with the stack's settings. */
  plain?: true;
  environment?: Record<string, string>;
  list?: true;
}

/**
 * A route's bundle, with what the stack bundles it with (route-bundling.ts); a reporting list is
 * built once per backend, as a stage of each kind deploys it: under its own name for a DynamoDB
 * stage, and again for a stage with a search domain.
 */
function routeSources(route: RouteSpec): BundleSource[] {
  const kind = route.id === 'mcpBots' ? 'mcp' : 'api';
  if (!route.reportingIndex)
    return [{ name: route.id, kind, entry: route.handler, bundling: routeBundling(route, 'dynamodb') }];
  return (['dynamodb', 'opensearch'] as const).map((backend) => ({
    list: true,
    name: backend === 'dynamodb' ? route.id : `${route.id} (OpenSearch stage)`,
    kind: backend === 'dynamodb' ? kind : 'reporting-opensearch',
    entry: route.handler,
    bundling: routeBundling(route, backend),
    environment: { [FUNCTION_ENV.reportingBackend]: backend },
  }));
}

export const BASELINE_ENTRY = 'test/bench/baseline-handler.ts';
/** What is measured as a bare bundle: the yardstick, the probes and the peers. */
const NOT_OURS: ReadonlySet<BundleKind> = new Set(['baseline', 'probe', 'peer']);
export const VALIDATORS_PROBE = 'baseline + validators';
export const SETTINGS_PROBE = "baseline + the stack's esbuild settings";

function sources(withPeers: boolean): BundleSource[] {
  return [
    { name: 'baseline', kind: 'baseline', entry: BASELINE_ENTRY, plain: true },
    {
      name: VALIDATORS_PROBE,
      kind: 'probe',
      entry: 'baseline-handler.ts + validators.generated.ts',
      plain: true,
      contents: `export { handler } from './${BASELINE_ENTRY}';
import * as validators from '#shared/schemas/validators.generated';
export const validatorCount = Object.keys(validators).length;`,
    },
    { name: SETTINGS_PROBE, kind: 'probe', entry: BASELINE_ENTRY },
    { name: 'authorizer', kind: 'authorizer', entry: AUTHORIZER_HANDLER },
    ...(routes as readonly RouteSpec[]).flatMap(routeSources),
    { name: OPENAPI_DOCUMENT_OPERATION, kind: 'api', entry: OPENAPI_DOCUMENT_HANDLER },
    { name: 'reportingIndexer', kind: 'stream', entry: REPORTING_INDEXER.handler },
    { name: RECORDING_PROCESSOR.id, kind: 'stream', entry: RECORDING_PROCESSOR.handler },
    { name: WEBHOOK_FAN_OUT.id, kind: 'stream', entry: WEBHOOK_FAN_OUT.handler },
    { name: WEBHOOK_DELIVERY.id, kind: 'stream', entry: WEBHOOK_DELIVERY.handler },
    { name: WEBHOOK_SWEEP.id, kind: 'stream', entry: WEBHOOK_SWEEP.handler },
    // Peers are measured by the cold-start section only.
    ...(withPeers
      ? PEER_HANDLERS.map(
          (peer): BundleSource => ({
            name: peer.name,
            kind: 'peer',
            entry: peer.entry,
            packages: peer.packages,
            plain: true,
          }),
        )
      : []),
  ];
}

/** The installed version of each package, read from its manifest (some export no `./package.json`). */
function installedVersions(packages: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    packages.map((name) => [
      name,
      (
        JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version,
    ]),
  );
}

function describe(metafile: Metafile): { bytes: number; contents: Record<string, number>; validatorBytes: number } {
  // The bundle, not its source map.
  const output = Object.entries(metafile.outputs).find(([path]) => !path.endsWith('.map'))![1];
  const contents: Record<string, number> = {};
  let validatorBytes = 0;
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const origin = packageOf(input);
    contents[origin] = (contents[origin] ?? 0) + bytesInOutput;
    if (input.endsWith('validators.generated.ts')) validatorBytes += bytesInOutput;
  }
  return { bytes: output.bytes, contents, validatorBytes };
}

/** Builds every bundle into a new temporary directory (the caller removes it). */
export async function buildBundles(
  outdir = mkdtempSync(join(tmpdir(), 'cxm-bench-')),
  { peers = true }: { peers?: boolean } = {},
): Promise<{ outdir: string; bundles: BuiltBundle[] }> {
  // The source map (beside the bundle, which it leaves byte for byte as the stack builds it) names
  // the package of each profiled function (cpu-profile-summary.ts).
  const options = (bundling?: Partial<FunctionBundling>): BuildOptions => ({
    ...esbuildOptions({ ...LAMBDA_BUNDLING, ...bundling }, LAMBDA_RUNTIME),
    metafile: true,
    sourcemap: 'external',
  });
  const plain: BuildOptions = { ...options(), keepNames: false };
  const bundles = await Promise.all(
    sources(peers).map(async (source, index): Promise<BuiltBundle> => {
      const file = join(outdir, `${String(index).padStart(2, '0')}-${source.name.replace(/\W+/g, '-')}.cjs`);
      const result = await build({
        ...(source.plain ? plain : options(source.bundling)),
        outfile: file,
        absWorkingDir: PROJECT_ROOT,
        ...(source.contents === undefined
          ? { entryPoints: [join(PROJECT_ROOT, source.entry)] }
          : {
              stdin: {
                contents: source.contents,
                loader: 'ts',
                resolveDir: PROJECT_ROOT,
                sourcefile: `${source.name}.ts`,
              },
            }),
      });
      const built: BuiltBundle = {
        name: source.name,
        kind: source.kind,
        entry: source.entry,
        file,
        ...describe(result.metafile!),
      };
      if (source.packages) built.packages = installedVersions(source.packages);
      if (source.environment) built.environment = source.environment;
      if (source.list) built.list = true;
      return built;
    }),
  );
  layOutAssets(outdir, bundles);
  return { outdir, bundles };
}

/** Our functions as their assets, with the cache and without (`assets`); the others stay bare bundles. */
function layOutAssets(outdir: string, bundles: BuiltBundle[]): void {
  const ours = bundles.filter((bundle) => !NOT_OURS.has(bundle.kind));
  const folder = (bundle: BuiltBundle, variant: string) => join(outdir, variant, basename(bundle.file, '.cjs'));
  // The local stage's target: this machine's pinned Node, this user.
  makeAssetFolders(
    ours.map((bundle) => ({
      bundle: bundle.file,
      folder: folder(bundle, 'cached'),
      warmUp: warmUpEvent(bundle.entry),
    })),
    compileCacheTarget(LOCAL_STAGE, process.arch),
  );
  makeAssetFolders(
    ours.map((bundle) => ({ bundle: bundle.file, folder: folder(bundle, 'uncached') })),
    { without: 'the rows without a cache' },
  );
  for (const bundle of ours)
    bundle.assets = {
      cached: join(folder(bundle, 'cached'), ENTRY_MODULE),
      uncached: join(folder(bundle, 'uncached'), ENTRY_MODULE),
    };
}

export function bundlesReport(bundles: readonly BuiltBundle[]): BundlesReport {
  const baseline = bundles.find((bundle) => bundle.kind === 'baseline')!;
  return {
    baseline: { bytes: baseline.bytes },
    functions: bundles
      .filter((bundle) => bundle.kind !== 'baseline' && bundle.kind !== 'peer')
      .map((bundle) => ({
        function: bundle.name,
        entry: bundle.entry,
        bytes: bundle.bytes,
        ratio: round(bundle.bytes / baseline.bytes),
        validatorBytes: bundle.validatorBytes,
        largest: Object.fromEntries(
          Object.entries(bundle.contents)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 6),
        ),
      })),
  };
}
