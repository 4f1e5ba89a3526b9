/**
 * Lambda's Node comes from the pinned binary package of this platform, matches the runtime CDK
 * deploys, installs without scripts, and where no package fits, the current Node stands in with a
 * warning that names what is missing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAMBDA_RUNTIME } from '#infra/cdk/constructs/api-function';
import { lambdaNode, pinnedLambdaNodeVersion, resolveLambdaNode } from '#infra/lambda-node';

describe("Lambda's Node", () => {
  it('is pinned to one exact version whose major is the deployed runtime', () => {
    const version = pinnedLambdaNodeVersion();
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(LAMBDA_RUNTIME.name).toBe(`nodejs${version.split('.')[0]}.x`);
  });

  it('on this machine is the pinned binary, and it runs', () => {
    const node = lambdaNode();
    expect(node.warning).toBeUndefined();
    expect(node.pinned).toBe(true);
    expect(execFileSync(node.execPath, ['-v'], { encoding: 'utf8' }).trim()).toBe(`v${pinnedLambdaNodeVersion()}`);
  });

  it('falls back to the current Node on a platform with no package, saying which package is missing', () => {
    const node = resolveLambdaNode('aix', 'ppc64');
    expect(node).toMatchObject({ execPath: process.execPath, version: process.version, pinned: false });
    expect(node.warning).toContain(`node-aix-ppc64@${pinnedLambdaNodeVersion()}`);
    expect(node.warning).toContain(process.version);
  });

  it('installs without install scripts (npm ci stays clean)', () => {
    const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, { optional?: boolean; hasInstallScript?: boolean; version?: string }>;
    };
    const binaries = Object.entries(lock.packages).filter(([path]) =>
      /^node_modules\/node-[a-z]+-[a-z0-9]+$/.test(path),
    );
    expect(binaries.length).toBeGreaterThanOrEqual(2);
    for (const [path, entry] of binaries) {
      expect(entry, path).toMatchObject({ optional: true, version: pinnedLambdaNodeVersion() });
      expect(entry.hasInstallScript, path).toBeUndefined();
    }
  });
});
