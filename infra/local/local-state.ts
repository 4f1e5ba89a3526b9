/**
 * `$CXM_HOME/local.json`: how the CLI and scripts find a running local stack
 * (infra/local/README.md).
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TableId } from '#shared/store/table-specs';
import type { LocalCredentials } from './emulators/local-identity.ts';

export interface LocalState {
  apiUrl: string;
  dynamodbEndpoint: string;
  /** The key id selects the store's database (dynamodb-local.ts): without it the tables are not there. */
  dynamodbCredentials: LocalCredentials;
  /** The local S3 server and the recordings bucket in it. */
  s3Endpoint?: string;
  recordingsBucket?: string;
  region: string;
  stage: string;
  tables: Record<TableId, string>;
  demo: { tenant: string; key: string } | null;
  /** What `cxm keys create` tags keys under (the stack's `$CXM_HOME/key-tag-secret`, or this run's in memory). */
  keyTagSecret?: string;
  /**
   * The OpenSearch engine the reporting lists search, when the stack serves them from it: where it
   * listens, its version, the indexes' prefix, and the key it accepts (the local functions').
   */
  opensearch?: { endpoint: string; version: string; indexPrefix: string; credentials: LocalCredentials };
  pid: number;
}

/**
 * The state directory: `$CXM_HOME`, else `.cxm`, against the working directory. The CLI passes
 * its run's environment and directory; everything else runs with the process's.
 *
 * @example cxmHome({ CXM_HOME: '/tmp/cxm' }) // '/tmp/cxm'
 * @example cxmHome({ CXM_HOME: 'state' }, '/work/app') // '/work/app/state'
 */
export function cxmHome(env: Readonly<Record<string, string | undefined>> = process.env, cwd = process.cwd()): string {
  return resolve(cwd, env.CXM_HOME ?? '.cxm');
}

export function localStatePath(home = cxmHome()): string {
  return join(home, 'local.json');
}

/**
 * Makes the state directory its owner's only (it holds the store's credentials and the demo key):
 * created so, or tightened when it is already ours (empty, or holding our state). A folder that
 * holds other things (CXM_HOME=$HOME, say) is left as it is: the secrets in it are mode 600.
 */
export function restrictStateDir(home = cxmHome()): void {
  if (!existsSync(home)) {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    return;
  }
  const entries = readdirSync(home);
  if (entries.length > 0 && !entries.includes('local.json') && !entries.includes('dynamodb')) return;
  try {
    chmodSync(home, 0o700);
  } catch {
    // Not ours to change (another owner's folder): its files keep their own modes.
  }
}

export function writeLocalState(state: LocalState, home = cxmHome()): void {
  const path = localStatePath(home);
  restrictStateDir(home);
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  // It holds the demo key: readable by its owner only, even if the file already existed.
  chmodSync(path, 0o600);
}

export function readLocalState(home = cxmHome()): LocalState | undefined {
  const path = localStatePath(home);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as LocalState;
}
