/**
 * The project's one OpenSearch engine version: the local engine's POM pins it
 * (`infra/local/emulators/opensearch/pom.xml`, `opensearch.version`), `npm start` and the tests run it, and a
 * stage's domain runs its major.minor (Amazon OpenSearch Service chooses the patch). Read from the
 * POM, so the jars the tests run and the domain a deploy asks for cannot name different versions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './project-root.ts';

/** The Maven project of the local engine. */
export const OPENSEARCH_ENGINE_DIR = join(PROJECT_ROOT, 'infra', 'local', 'emulators', 'opensearch');

let version: string | undefined;

/**
 * The engine version the POM pins.
 *
 * @example opensearchEngineVersion() // '2.19.6'
 */
export function opensearchEngineVersion(): string {
  if (version) return version;
  const pom = readFileSync(join(OPENSEARCH_ENGINE_DIR, 'pom.xml'), 'utf8');
  const found = /<opensearch\.version>\s*(\d+\.\d+\.\d+)\s*<\/opensearch\.version>/.exec(pom)?.[1];
  if (!found)
    throw new Error(`infra/local/emulators/opensearch/pom.xml names no <opensearch.version>x.y.z</opensearch.version>`);
  version = found;
  return found;
}

/**
 * The version a stage's domain is created with: the engine's major and minor.
 *
 * @example domainEngineVersion() // '2.19'
 */
export function domainEngineVersion(): string {
  return opensearchEngineVersion().split('.').slice(0, 2).join('.');
}
