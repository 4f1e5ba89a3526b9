/**
 * `npm install`'s last step (package.json `postinstall`): resolves the local OpenSearch engine with
 * Maven into its cache and builds our launcher (infra/local/README.md, the local OpenSearch engine).
 * Quick when nothing changed. Without Maven it says what to install and lets `npm install` succeed:
 * only the OpenSearch backend of `npm start` and `npm test` need the engine, and each says so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENSEARCH_ENGINE_DIR, opensearchEngineVersion } from '#infra/opensearch-engine';
import { ENGINE_PREREQUISITES, ENGINE_TARGET, installedEngine, installRecord } from './engine-installation.ts';

export interface InstallOptions {
  /** Maven's output folder (the POM's `cxm.engine.target`); default the engine's `target/`. */
  target?: string;
  /** The Maven command; default `mvn` on PATH. */
  maven?: string;
  /** Where the lines go; default stderr. */
  say?: (line: string) => void;
}

/**
 * Installs the engine unless it is installed already, and answers the exit code: 0 also when
 * Maven is missing (only the OpenSearch backend needs the engine, and says so), 1 when Maven fails.
 *
 * @example process.exitCode = await installEngine();
 */
export async function installEngine(options: InstallOptions = {}): Promise<number> {
  const { target = ENGINE_TARGET, maven: mvn = 'mvn' } = options;
  const say = options.say ?? ((line: string) => process.stderr.write(`cxm: ${line}\n`));
  const version = opensearchEngineVersion();
  if (installedEngine(target).ok) {
    say(`OpenSearch ${version} engine: installed`);
    return 0;
  }
  const maven = spawnSync(mvn, ['-v'], { encoding: 'utf8' });
  if (maven.error || maven.status !== 0) {
    say(
      `Maven could not be run, so the OpenSearch ${version} engine is not installed. The OpenSearch backend ` +
        `(CXM_REPORTING_BACKEND=opensearch npm start) and npm test need it: install ${ENGINE_PREREQUISITES}, then run npm install again.`,
    );
    return 0;
  }
  say(
    `installing the OpenSearch ${version} engine with Maven (its jars, about 45 MB, and Maven's plugins come from Maven Central the first time)...`,
  );
  const started = Date.now();
  const ticker = setInterval(() => say(`  still resolving (${Math.round((Date.now() - started) / 1000)} s)`), 15_000);
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const build = spawn(
      mvn,
      ['-B', '-q', '-Dstyle.color=never', '-f', 'pom.xml', `-Dcxm.engine.target=${target}`, 'compile'],
      {
        cwd: OPENSEARCH_ENGINE_DIR,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    build.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    build.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    build.on('error', () => resolve(null));
    build.on('exit', resolve);
  });
  clearInterval(ticker);
  if (code !== 0) {
    process.stderr.write(output.join(''));
    say(
      `Maven could not build the OpenSearch engine (exit ${code}; its output is above). It needs ${ENGINE_PREREQUISITES} ` +
        'and, the first time, Maven Central; fix what it reports, then run npm install again.',
    );
    return 1;
  }
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, 'installed.json'), installRecord());
  say(`OpenSearch ${version} engine installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await installEngine();
