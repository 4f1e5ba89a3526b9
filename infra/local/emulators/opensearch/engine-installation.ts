/**
 * Where `npm install` leaves the local OpenSearch engine and how a start finds it: Maven (the
 * POM beside this file) resolves the engine's jars into its own cache and compiles our launcher
 * into `target/`, with the class path written beside it and a record of what it was built from.
 * A start reads that record and never runs Maven: nothing is fetched at run time.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { OPENSEARCH_ENGINE_DIR, opensearchEngineVersion } from '#infra/opensearch-engine';
import { StartupError } from '../local-programs.ts';

/** Maven's output folder: the compiled launcher, the class path, the install record. */
export const ENGINE_TARGET = join(OPENSEARCH_ENGINE_DIR, 'target');
export const INSTALL_RECORD_FILE = join(ENGINE_TARGET, 'installed.json');

/** The class that starts a node (src/main/java/cxm/opensearch/LocalOpenSearch.java). */
export const ENGINE_MAIN_CLASS = 'cxm.opensearch.LocalOpenSearch';

/** What to install, said once for the installer and every start that finds no engine. */
export const ENGINE_PREREQUISITES =
  'Maven 3.6+ and a JDK 17+ (on Debian: apt-get install maven openjdk-17-jdk-headless; elsewhere see https://maven.apache.org/install.html)';

interface InstallRecord {
  version: string;
  inputs: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** A hash of what the engine is built from: the POM and our Java sources. */
export function engineInputsHash(): string {
  const hash = createHash('sha256');
  const files = [join(OPENSEARCH_ENGINE_DIR, 'pom.xml'), ...sourceFiles(join(OPENSEARCH_ENGINE_DIR, 'src'))].sort();
  for (const file of files)
    hash.update(relative(OPENSEARCH_ENGINE_DIR, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** The record the installer writes once Maven has built what `inputs` names. */
export function installRecord(): string {
  return `${JSON.stringify({ version: opensearchEngineVersion(), inputs: engineInputsHash() } satisfies InstallRecord)}\n`;
}

export interface EngineInstallation {
  version: string;
  /** The JVM's class path: our classes, then the jars in Maven's cache. */
  classPath: string;
}

/**
 * Whether the engine installed in `target` (Maven's output folder) is the one these sources
 * describe, with every jar still in Maven's cache.
 *
 * @example installedEngine() // { ok: false, reason: 'the OpenSearch engine is not installed. ...' } before npm install
 */
export function installedEngine(
  target = ENGINE_TARGET,
): { ok: true; installation: EngineInstallation } | { ok: false; reason: string } {
  const classPathFile = join(target, 'classpath.txt');
  let record: Partial<InstallRecord> | undefined;
  try {
    record = JSON.parse(readFileSync(join(target, 'installed.json'), 'utf8')) as Partial<InstallRecord>;
  } catch {
    record = undefined;
  }
  if (!record || !existsSync(classPathFile))
    return {
      ok: false,
      reason: `the OpenSearch engine is not installed. npm install installs it with ${ENGINE_PREREQUISITES}: install those, then run npm install again`,
    };
  if (record.inputs !== engineInputsHash() || record.version !== opensearchEngineVersion())
    return {
      ok: false,
      reason:
        'the OpenSearch engine was built from other sources than these (infra/local/emulators/opensearch changed since): run npm install again to rebuild it',
    };
  const jars = readFileSync(classPathFile, 'utf8').trim().split(delimiter).filter(Boolean);
  const missing = jars.find((jar) => !existsSync(jar));
  if (missing)
    return {
      ok: false,
      reason: `the OpenSearch engine's ${missing} is gone from Maven's cache: run npm install again to fetch it`,
    };
  return {
    ok: true,
    installation: { version: record.version, classPath: [join(target, 'classes'), ...jars].join(delimiter) },
  };
}

/**
 * The installed engine, or a StartupError that says what to run or install.
 *
 * @example const { classPath, version } = requireInstalledEngine();
 */
export function requireInstalledEngine(): EngineInstallation {
  const found = installedEngine();
  if (!found.ok) throw new StartupError(`${found.reason}.`);
  return found.installation;
}
