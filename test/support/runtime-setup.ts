/**
 * Runs in every test file's process before it: the bundles project's gateways serve from the run's
 * one synthesis (global-setup.ts; waited for here, as the global setup does not) instead of
 * synthesizing their own, every gateway's functions sign with the one key the run's OpenSearch
 * engine accepts, a sources gateway records its
 * functions' AWS calls into the run's folder, and a sources gateway's per-invocation store is made
 * before any AWS SDK call of the file (invocation-scope.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject, vi } from 'vitest';
import { AWS_CALL_LOG_ENV } from '#infra/local/emulators/record-aws-calls';
import { prepareInvocationStore } from '#infra/local/runtime/invocation-scope';
import { inBundleRuntime } from './runtime.ts';
import { FRESH_PER_FILE_ENV } from './test-env.ts';

/** The run's synthesis of the local stage, once the global setup has completed it (it runs beside the other projects' files). */
async function completedAssembly(dir: string, failure: string): Promise<string> {
  if (!dir)
    throw new Error(
      'CXM_RUNTIME=bundles outside the bundles project: no synthesis of the local stage was started for this file',
    );
  for (;;) {
    if (existsSync(join(dir, 'manifest.json'))) return dir;
    if (existsSync(failure))
      throw new Error(`the run's synthesis of the local stage failed:\n${readFileSync(failure, 'utf8')}`);
    await sleep(200);
  }
}

// A sources worker runs several files in one process (`isolate: false`): each gets the
// environment the first began with and its own instances of the project's modules, while the
// packages stay loaded. The `modules` project, which shares its modules on purpose, does not ask.
const FIRST_ENV = Symbol.for('cxm.test.first-environment');
const kept = globalThis as { [FIRST_ENV]?: NodeJS.ProcessEnv };
if (process.env[FRESH_PER_FILE_ENV]) {
  const first = kept[FIRST_ENV];
  if (first) {
    for (const name of Object.keys(process.env)) if (!(name in first)) delete process.env[name];
    Object.assign(process.env, first);
    vi.resetModules();
  } else kept[FIRST_ENV] = { ...process.env };
}

if (inBundleRuntime)
  process.env.CXM_ASSEMBLY_DIR = await completedAssembly(inject('assemblyDir'), inject('assemblyFailure'));
// Every sources gateway of the file records its functions' AWS calls for the IAM simulation.
const awsCallLog = inject('awsCallLog');
if (awsCallLog) process.env[AWS_CALL_LOG_ENV] = awsCallLog;
// The run's engine accepts one key: every gateway of the run signs with it (global-setup.ts).
// `npm run test:unit` starts no engine.
// Imported here, after the modules were reset for this file: the file's own instance of the gate.
const opensearch = inject('opensearch');
if (opensearch)
  (await import('#infra/local/emulators/local-dynamo-gate')).adoptLocalFunctionCredentials(opensearch.credentials);
await prepareInvocationStore();
