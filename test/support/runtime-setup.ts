/**
 * Runs in every test file's process before it: the bundles project's gateways serve from the run's
 * one synthesis (global-setup.ts) instead of synthesizing their own, and a sources gateway's
 * per-invocation store is made before any AWS SDK call of the file (invocation-scope.ts).
 */
import { inject } from 'vitest';
import { prepareInvocationStore } from '#infra/local/invocation-scope';
import { inBundleRuntime } from './runtime.ts';

if (inBundleRuntime) process.env.CXM_ASSEMBLY_DIR = inject('assemblyDir');
await prepareInvocationStore();
