/**
 * Where a measured process's CPU went, read from V8's CPU profile (`--cpu-prof`, or the
 * inspector's Profiler): the bench prints it for each goal its run missed, so the performance page
 * says where the time goes with the figures of the same run. Self time only, each sample counted
 * once; the profiler's own cost is in every figure, so they are for comparing parts, not for the
 * goals.
 */
import { readFileSync } from 'node:fs';
import type { Profiler } from 'node:inspector';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode, type SourceMapMappings } from '@jridgewell/sourcemap-codec';
import { PROJECT_ROOT } from '#infra/project-root';

export type CpuProfile = Profiler.Profile;
/** Where a profile node's code is: function, script URL, 0-based line and column. */
export type CallFrame = Profiler.ProfileNode['callFrame'];

/** A named part of the sampled time. */
export interface Share {
  name: string;
  ms: number;
}

/** One cold request's profile (import and first request), in parts, ms. */
export interface ColdProfile {
  /** How many processes' profiles it averages. */
  processes: number;
  /** Everything sampled but idle. */
  sampledMs: number;
  /** The bundle's own code running, by npm package (`project`: ours). */
  bundle: Share[];
  /** Node's built-in modules loaded on demand (compiled and run at their first require), by module. */
  builtins: Share[];
  /** Compiling the bundle (from the code cache where there is one). */
  compileMs: number;
  gcMs: number;
  /** The rest: Node's own code and native work (I/O, crypto, the module loader). */
  nodeMs: number;
}

interface Node {
  frame: CallFrame;
  parent: Node | undefined;
  selfMs: number;
}

/** Every profile node with its self time and parent. */
function nodesOf(profile: CpuProfile): Node[] {
  const nodes = new Map<number, Node>(
    profile.nodes.map((node) => [node.id, { frame: node.callFrame, parent: undefined, selfMs: 0 }]),
  );
  for (const node of profile.nodes)
    for (const child of node.children ?? []) nodes.get(child)!.parent = nodes.get(node.id);
  const deltas = profile.timeDeltas ?? [];
  // A sample's time is the gap to the next one.
  profile.samples?.forEach((id, i) => {
    nodes.get(id)!.selfMs += (deltas[i + 1] ?? 0) / 1000;
  });
  return [...nodes.values()];
}

const isModuleTop = (frame: CallFrame) =>
  frame.url.startsWith('node:') && frame.functionName === '' && frame.lineNumber === 0 && frame.columnNumber === 0;
const isBuiltinLoad = (frame: CallFrame) =>
  frame.functionName === 'compileForInternalLoader' && frame.url === 'node:internal/bootstrap/realm';
/** Compiling the bundle: an entry's vm.Script (with the cache), the CommonJS loader's for a bare bundle. */
const isCompile = (frame: CallFrame) =>
  (frame.functionName === 'Script' && frame.url === 'node:vm') ||
  (frame.functionName === 'wrapSafe' && frame.url === 'node:internal/modules/cjs/loader') ||
  (frame.functionName === 'compileFunction' && frame.url === '');

/**
 * The built-in module a sample's time belongs to, when it was spent loading one: the outermost
 * module our code (or Node's bootstrap) required, with everything that module required in turn.
 */
function builtinOf(node: Node): string | undefined {
  let module: string | undefined;
  let loading = false;
  let candidate: string | undefined;
  for (let at: Node | undefined = node; at; at = at.parent) {
    if (isModuleTop(at.frame)) candidate = at.frame.url;
    if (isBuiltinLoad(at.frame)) {
      loading = true;
      // Before its first line runs, a module is being compiled.
      module = candidate ?? module ?? '(compiling them)';
    }
  }
  return loading ? module : undefined;
}

/** The npm package a bundled source path belongs to, or `project`. */
export function packageOf(path: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return match ? match[1]! : 'project';
}

/** What the bundle's code without a source is counted under. */
const ESBUILD_HELPERS = '(esbuild helpers)';

/** Where in the sources a position of a bundle comes from, by its source map. */
export interface BundleSources {
  /** The package of the code at a 0-based line and column of the bundle. */
  packageAt(line: number, column: number): string;
}

/**
 * The sources of a bundle, from the source map esbuild wrote beside it (`<bundle>.map`).
 *
 * @example bundleSources('/tmp/cxm-bench-x/04-addInternalNote.cjs').packageAt(3, 16334) // '@smithy/core'
 */
export function bundleSources(bundleFile: string): BundleSources {
  const map = JSON.parse(readFileSync(`${bundleFile}.map`, 'utf8')) as { sources: string[]; mappings: string };
  const lines: SourceMapMappings = decode(map.mappings);
  const packages = map.sources.map(packageOf);
  return {
    packageAt(line, column) {
      const segments = lines[line] ?? [];
      // The last segment at or before the column: segments are sorted by column.
      let low = 0;
      let high = segments.length - 1;
      let found: number | undefined;
      while (low <= high) {
        const middle = (low + high) >> 1;
        if (segments[middle]![0] <= column) {
          found = middle;
          low = middle + 1;
        } else high = middle - 1;
      }
      // No source: esbuild's own helpers (its module wrappers, which also pay for compiling lazily).
      const source = found === undefined ? undefined : segments[found]![1];
      return (source === undefined ? undefined : packages[source]) ?? ESBUILD_HELPERS;
    },
  };
}

const add = (shares: Map<string, number>, name: string, ms: number) => shares.set(name, (shares.get(name) ?? 0) + ms);
const sorted = (shares: Map<string, number>): Share[] =>
  [...shares].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);

/**
 * The package of a frame's code when it is the measured bundle's (an asset's entry counts as
 * `project`), undefined for any other code.
 */
export type BundleCode = (frame: CallFrame) => string | undefined;

/**
 * One cold request's profile in parts.
 *
 * @example summariseColdProfile(JSON.parse(readFileSync(file, 'utf8')), (frame) => (frame.url === bundleUrl ? 'project' : undefined))
 */
export function summariseColdProfile(profile: CpuProfile, codeOf: BundleCode): ColdProfile {
  const bundle = new Map<string, number>();
  const builtins = new Map<string, number>();
  const totals = { sampledMs: 0, compileMs: 0, gcMs: 0, nodeMs: 0 };
  for (const node of nodesOf(profile)) {
    const { frame, selfMs } = node;
    if (selfMs === 0 || frame.functionName === '(idle)') continue;
    totals.sampledMs += selfMs;
    const builtin = builtinOf(node);
    if (builtin !== undefined) add(builtins, builtin, selfMs);
    else if (frame.functionName === '(garbage collector)') totals.gcMs += selfMs;
    else if (isCompile(frame)) totals.compileMs += selfMs;
    else {
      const code = codeOf(frame);
      if (code === undefined) totals.nodeMs += selfMs;
      else add(bundle, code, selfMs);
    }
  }
  return { processes: 1, ...totals, bundle: sorted(bundle), builtins: sorted(builtins) };
}

/** Each part of `profiles` averaged, with the shares averaged by name. */
export function averageColdProfiles(profiles: readonly ColdProfile[]): ColdProfile {
  const mean = (pick: (profile: ColdProfile) => number) =>
    profiles.reduce((sum, profile) => sum + pick(profile), 0) / profiles.length;
  const shares = (pick: (profile: ColdProfile) => Share[]) => {
    const total = new Map<string, number>();
    for (const profile of profiles)
      for (const share of pick(profile)) add(total, share.name, share.ms / profiles.length);
    return sorted(total);
  };
  return {
    processes: profiles.length,
    sampledMs: mean((profile) => profile.sampledMs),
    bundle: shares((profile) => profile.bundle),
    builtins: shares((profile) => profile.builtins),
    compileMs: mean((profile) => profile.compileMs),
    gcMs: mean((profile) => profile.gcMs),
    nodeMs: mean((profile) => profile.nodeMs),
  };
}

/** What a frame's time is counted under in a warm profile: a package, one of our files, or a kind of Node's work. */
function originOf(frame: CallFrame): string {
  if (frame.functionName === '(garbage collector)') return 'garbage collection';
  if (frame.url.startsWith('node:') || frame.url === '') return "Node's own code";
  const path = frame.url.startsWith('file:') ? fileURLToPath(frame.url) : frame.url;
  const npm = packageOf(path);
  return npm === 'project' ? relative(PROJECT_ROOT, path) : npm;
}

/** Sampled CPU per call by origin, µs, idle left out: over `profiles` that together timed `calls` calls. */
export function perCallByOrigin(profiles: readonly CpuProfile[], calls: number): Map<string, number> {
  const origins = new Map<string, number>();
  for (const profile of profiles)
    for (const { frame, selfMs } of nodesOf(profile)) {
      if (selfMs === 0 || frame.functionName === '(idle)') continue;
      add(origins, originOf(frame), (selfMs * 1000) / calls);
    }
  return origins;
}

/** A warm request's sampled CPU, chain and bare, and where the chain's extra goes. */
export interface WarmProfile {
  /** Calls profiled per side. */
  calls: number;
  /** Per call, µs. */
  chainUs: number;
  bareUs: number;
  /** Each origin's µs per call, chain minus bare, largest first. */
  extra: Array<{ origin: string; us: number }>;
}

/**
 * The chain's profiles against the bare function's, per call, µs: each side's slices of a run that
 * took turns (the machine's speed drifts within a process, so one long profile a side would count
 * the drift as the chain's), `calls` calls a side in all.
 *
 * @example warmProfile(chainSlices, bareSlices, 2000).extra[0] // { origin: '@aws-lambda-powertools/logger', us: 6.1 }
 */
export function warmProfile(chain: readonly CpuProfile[], bare: readonly CpuProfile[], calls: number): WarmProfile {
  const ofChain = perCallByOrigin(chain, calls);
  const ofBare = perCallByOrigin(bare, calls);
  const total = (origins: Map<string, number>) => [...origins.values()].reduce((sum, us) => sum + us, 0);
  const extra = new Map<string, number>();
  for (const origin of new Set([...ofChain.keys(), ...ofBare.keys()]))
    extra.set(origin, (ofChain.get(origin) ?? 0) - (ofBare.get(origin) ?? 0));
  return {
    calls,
    chainUs: total(ofChain),
    bareUs: total(ofBare),
    extra: sorted(extra).map(({ name, ms }) => ({ origin: name, us: ms })),
  };
}
