/**
 * A start finds the local OpenSearch engine npm install built, or stops in one line that says what
 * to run or install: never installed (no Maven), built from other sources, or a jar gone from
 * Maven's cache. And `npm install` without Maven says what to install and succeeds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installedEngine, installRecord } from '#infra/local/emulators/opensearch/engine-installation';
import { installEngine } from '#infra/local/emulators/opensearch/install-engine';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A Maven output folder holding what is given. */
function target(files: { record?: string; classPath?: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'cxm-engine-target-'));
  dirs.push(dir);
  if (files.record !== undefined) writeFileSync(join(dir, 'installed.json'), files.record);
  if (files.classPath !== undefined) writeFileSync(join(dir, 'classpath.txt'), files.classPath);
  return dir;
}

describe('the installed engine', () => {
  it('is found with its class path: our classes first, then the jars', () => {
    const jar = join(target({}), 'opensearch.jar');
    writeFileSync(jar, '');
    const dir = target({ record: installRecord(), classPath: jar });
    expect(installedEngine(dir)).toEqual({
      ok: true,
      installation: { version: expect.stringMatching(/^2\.19\.\d+$/), classPath: `${join(dir, 'classes')}:${jar}` },
    });
  });

  it('never installed: what to install, and to run npm install again', () => {
    const found = installedEngine(target({}));
    expect(found).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^the OpenSearch engine is not installed\. npm install installs it with Maven 3\.6\+ and a JDK 17\+ .*run npm install again$/,
      ),
    });
  });

  it('built from other sources: run npm install again', () => {
    const stale = JSON.stringify({ ...JSON.parse(installRecord()), inputs: '0000000000000000' });
    expect(installedEngine(target({ record: stale, classPath: '' }))).toEqual({
      ok: false,
      reason: expect.stringMatching(/built from other sources than these .*run npm install again to rebuild it$/),
    });
  });

  it("a jar gone from Maven's cache: run npm install again", () => {
    const gone = join(tmpdir(), 'cxm-no-such-dir', 'opensearch-2.19.6.jar');
    expect(installedEngine(target({ record: installRecord(), classPath: gone }))).toEqual({
      ok: false,
      reason: `the OpenSearch engine's ${gone} is gone from Maven's cache: run npm install again to fetch it`,
    });
  });
});

describe('npm install without Maven', () => {
  it('says what to install and succeeds', async () => {
    const lines: string[] = [];
    const code = await installEngine({
      target: target({}),
      maven: join(tmpdir(), 'cxm-no-such-dir', 'mvn'),
      say: (line) => lines.push(line),
    });
    expect(code).toBe(0);
    expect(lines).toEqual([
      expect.stringMatching(
        /^Maven could not be run, so the OpenSearch 2\.19\.\d+ engine is not installed\. The OpenSearch backend \(CXM_REPORTING_BACKEND=opensearch npm start\) and npm test need it: install Maven 3\.6\+ and a JDK 17\+ .*then run npm install again\.$/,
      ),
    ]);
  });

  it('an engine built for these sources needs no Maven at all', async () => {
    const jar = join(target({}), 'opensearch.jar');
    writeFileSync(jar, '');
    const lines: string[] = [];
    const code = await installEngine({
      target: target({ record: installRecord(), classPath: jar }),
      maven: join(tmpdir(), 'cxm-no-such-dir', 'mvn'),
      say: (line) => lines.push(line),
    });
    expect(code).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/^OpenSearch 2\.19\.\d+ engine: installed$/)]);
  });
});
