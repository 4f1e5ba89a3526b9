/**
 * Runs in every test file's process before it: the bundles project's gateways serve from the run's
 * one synthesis (global-setup.ts) instead of synthesizing their own, a sources gateway records its
 * functions' AWS calls into the run's folder, and a sources gateway's per-invocation store is made
 * before any AWS SDK call of the file (invocation-scope.ts).
 */
import { inject } from 'vitest';
import { prepareInvocationStore } from '#infra/local/invocation-scope';
import { AWS_CALL_LOG_ENV } from '#infra/local/record-aws-calls';
import { inBundleRuntime } from './runtime.ts';

if (inBundleRuntime) process.env.CXM_ASSEMBLY_DIR = inject('assemblyDir');
// Every sources gateway of the file records its functions' AWS calls for the IAM simulation.
const awsCallLog = inject('awsCallLog');
if (awsCallLog) process.env[AWS_CALL_LOG_ENV] = awsCallLog;
await prepareInvocationStore();
