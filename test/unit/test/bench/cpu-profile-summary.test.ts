/**
 * How the bench reads a CPU profile (test/bench/cpu-profile-summary.ts): which part each sample's
 * time counts under. The profiles are written by hand, so each part's figure is known.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encode } from '@jridgewell/sourcemap-codec';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import {
  averageColdProfiles,
  bundleSources,
  type CallFrame,
  type CpuProfile,
  summariseColdProfile,
  warmProfile,
} from '#test/bench/cpu-profile-summary';

interface Frame {
  name?: string;
  url?: string;
  line?: number;
  column?: number;
  /** Self time, ms. */
  ms?: number;
  children?: Frame[];
}

/** A profile of `root`'s tree, each frame sampled for its `ms` in one sample. */
function profileOf(root: Frame): CpuProfile {
  const nodes: CpuProfile['nodes'] = [];
  const samples: number[] = [];
  const timeDeltas: number[] = [0];
  const visit = (frame: Frame): number => {
    const id = nodes.length + 1;
    const node = {
      id,
      callFrame: {
        functionName: frame.name ?? '',
        scriptId: '0',
        url: frame.url ?? '',
        lineNumber: frame.line ?? -1,
        columnNumber: frame.column ?? -1,
      },
      children: [] as number[],
    };
    nodes.push(node);
    if (frame.ms) {
      samples.push(id);
      timeDeltas.push(frame.ms * 1000);
    }
    node.children = (frame.children ?? []).map(visit);
    return id;
  };
  visit({ name: '(root)', children: [root] });
  return { nodes, startTime: 0, endTime: 0, samples, timeDeltas };
}

/** A module's first line, as V8 names it. */
const moduleTop = (url: string, ms: number, children: Frame[] = []): Frame => ({
  url,
  line: 0,
  column: 0,
  ms,
  children,
});
const loading = (children: Frame[], ms = 0): Frame => ({
  name: 'compileForInternalLoader',
  url: 'node:internal/bootstrap/realm',
  ms,
  children,
});
const BUNDLE = 'file:///asset/bundle.cjs';
const codeOf = (frame: CallFrame) => (frame.url === BUNDLE ? `package@${frame.lineNumber}` : undefined);

describe('a cold request profile', () => {
  const profile = summariseColdProfile(
    profileOf({
      name: 'run',
      url: 'node:internal/main/eval_string',
      ms: 2,
      children: [
        { name: '(idle)', ms: 50 },
        { name: '(garbage collector)', ms: 3 },
        { name: 'Script', url: 'node:vm', ms: 7 },
        { name: 'handler', url: BUNDLE, line: 4, column: 10, ms: 11 },
        { name: 'send', url: BUNDLE, line: 9, column: 0, ms: 5 },
        { name: 'emit', url: 'node:events', ms: 1 },
        // https loads tls, which loads net: all of it is https's, which our code required.
        {
          name: 'require',
          url: BUNDLE,
          line: 4,
          column: 50,
          children: [
            loading(
              [
                moduleTop('node:https', 4, [
                  loading([moduleTop('node:tls', 6, [loading([moduleTop('node:net', 2)], 1)])], 0.5),
                ]),
              ],
              1.5,
            ),
          ],
        },
        loading([moduleTop('node:crypto', 8)]),
      ],
    }),
    codeOf,
  );

  it('leaves idle time out, and counts everything else once', () => {
    expect(profile.sampledMs).toBeCloseTo(2 + 3 + 7 + 11 + 5 + 1 + 4 + 6 + 2 + 1 + 0.5 + 1.5 + 8);
  });

  it('counts a built-in module with all it loads, its compiling before its first line included, under the module the code required', () => {
    expect(profile.builtins).toEqual([
      { name: 'node:https', ms: 4 + 0.5 + 6 + 1 + 2 },
      { name: 'node:crypto', ms: 8 },
      { name: '(compiling them)', ms: 1.5 },
    ]);
  });

  it("counts the bundle's own code by package, and the rest apart", () => {
    expect(profile.bundle).toEqual([
      { name: 'package@4', ms: 11 },
      { name: 'package@9', ms: 5 },
    ]);
    expect(profile).toMatchObject({ compileMs: 7, gcMs: 3, nodeMs: 2 + 1 });
  });

  it('averages profiles part by part', () => {
    const half = { ...profile, processes: 1, sampledMs: 10, gcMs: 1, bundle: [{ name: 'a', ms: 2 }] };
    expect(averageColdProfiles([profile, half])).toMatchObject({
      processes: 2,
      sampledMs: (profile.sampledMs + 10) / 2,
      gcMs: 2,
      bundle: [
        { name: 'package@4', ms: 5.5 },
        { name: 'package@9', ms: 2.5 },
        { name: 'a', ms: 1 },
      ],
    });
  });
});

describe("a bundle's sources", () => {
  const dir = mkdtempSync(join(tmpdir(), 'cxm-profile-map-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names the package of a position by the source map beside the bundle, and esbuild's own helpers where it has none", () => {
    const bundle = join(dir, 'bundle.cjs');
    // Line 0: helpers up to column 10, then the SDK from 10, ours from 50; line 1: ours.
    const mappings = encode([
      [
        [10, 0, 0, 0],
        [50, 1, 3, 0],
      ],
      [[0, 1, 7, 2]],
    ]);
    const sources = ['../../node_modules/@smithy/core/dist-cjs/index.js', '../../shared/http/logger.ts'];
    writeFileSync(`${bundle}.map`, JSON.stringify({ version: 3, sources, names: [], mappings }));
    const code = bundleSources(bundle);
    expect([code.packageAt(0, 3), code.packageAt(0, 10), code.packageAt(0, 49), code.packageAt(0, 80)]).toEqual([
      '(esbuild helpers)',
      '@smithy/core',
      '@smithy/core',
      'project',
    ]);
    expect(code.packageAt(1, 0)).toBe('project');
  });
});

describe('a warm profile', () => {
  const file = (path: string) => pathToFileURL(join(PROJECT_ROOT, path)).href;
  const sdk = { name: 'send', url: file('node_modules/@smithy/core/dist-cjs/index.js'), ms: 0 };

  it("says per call where the chain's time goes beyond the bare function's, by package, our file or Node", () => {
    const chain = profileOf({
      name: 'chain',
      url: file('node_modules/@middy/core/index.js'),
      ms: 10,
      children: [
        { ...sdk, ms: 40 },
        { name: 'withCommonHeaders', url: file('shared/http/response-headers.ts'), ms: 6 },
        { name: 'setTimeout', url: 'node:timers', ms: 4 },
        { name: '(idle)', ms: 100 },
      ],
    });
    const bare = profileOf({ name: 'bare', url: file('test/bench/bare.ts'), ms: 2, children: [{ ...sdk, ms: 36 }] });
    // 1 000 calls a side: 1 ms of self time is 1 µs a call.
    expect(warmProfile([chain], [bare], 1000)).toEqual({
      calls: 1000,
      chainUs: 60,
      bareUs: 38,
      extra: [
        { origin: '@middy/core', us: 10 },
        { origin: 'shared/http/response-headers.ts', us: 6 },
        { origin: '@smithy/core', us: 4 },
        { origin: "Node's own code", us: 4 },
        { origin: 'test/bench/bare.ts', us: -2 },
      ],
    });
  });

  it('counts every slice of a side: slices that took turns add up to the calls of the whole side', () => {
    const slice = (name: string, sdkMs: number, ownMs: number) =>
      profileOf({ name, url: file(`test/bench/${name}.ts`), ms: ownMs, children: [{ ...sdk, ms: sdkMs }] });
    // Two slices a side, 500 calls each: the machine slowed between them, on both sides alike.
    const profile = warmProfile(
      [slice('chain', 10, 3), slice('chain', 20, 3)],
      [slice('bare', 9, 1), slice('bare', 18, 1)],
      1000,
    );
    expect(profile).toEqual({
      calls: 1000,
      chainUs: 36,
      bareUs: 29,
      extra: [
        { origin: 'test/bench/chain.ts', us: 6 },
        { origin: '@smithy/core', us: 3 },
        { origin: 'test/bench/bare.ts', us: -2 },
      ],
    });
  });
});
