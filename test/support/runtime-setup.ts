/**
 * Runs in every test file's process before it: the bundles project's gateways serve from the run's
 * one synthesis (global-setup.ts) instead of synthesizing their own.
 */
import { inject } from 'vitest';
import { inBundleRuntime } from './runtime.ts';

if (inBundleRuntime) process.env.CXM_ASSEMBLY_DIR = inject('assemblyDir');
