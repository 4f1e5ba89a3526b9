/**
 * Runs in every test file's process before it: the bundles project's gateways serve from the run's
 * one synthesis (global-setup.ts; waited for here, as the global setup does not) instead of
 * synthesizing their own, a sources gateway records its
 * functions' AWS calls into the run's folder, and a sources gateway's per-invocation store is made
 * before any AWS SDK call of the file (invocation-scope.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { prepareInvocationStore } from '#infra/local/invocation-scope';
import { AWS_CALL_LOG_ENV } from '#infra/local/record-aws-calls';
import { inBundleRuntime } from './runtime.ts';

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

if (inBundleRuntime)
  process.env.CXM_ASSEMBLY_DIR = await completedAssembly(inject('assemblyDir'), inject('assemblyFailure'));
// Every sources gateway of the file records its functions' AWS calls for the IAM simulation.
const awsCallLog = inject('awsCallLog');
if (awsCallLog) process.env[AWS_CALL_LOG_ENV] = awsCallLog;
await prepareInvocationStore();
