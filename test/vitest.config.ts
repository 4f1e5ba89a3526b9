import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { TEST_ENV } from './support/test-env.ts';

// The global setup runs in this process: keep it as quiet as the workers.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// A test that starts `node` (npm start, the CLI) gets the Node this run is on (Lambda's, from
// node_modules/.bin, under npm test), also when vitest is started some other way.
process.env.PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);

const env = TEST_ENV;

/**
 * The suites the bundles project runs again, with every function served by its synthesized bundle
 * on Lambda's Node (infra/local/README.md, bundle mode). The handler code is the same in both
 * runtimes; what only the bundles can break is the wiring CDK does, so these are the suites that
 * cross it: every route once through the smoke checks (cli-smoke: each endpoint, MCP, both kinds of
 * recording through the S3 and Transcribe rules), which function serves which method and
 * authorizes it (authorization-matrix, gateway), the tenant from the authorizer's context to every
 * store call (tenant-isolation), the template's timeout (deadline) and its schedule
 * (voc-lost-events). The attacks on keys and uploads run in both too (key-tags and
 * untagged-keys-refused: the stage secret read through Secrets Manager; voc-recordings and
 * voc-fair-share: the processor's bundle, its audio probe included, against the local S3). Every
 * other HTTP suite runs with the sources; test/README.md lists what runs where.
 */
const BUNDLE_SUITES = ['authorization-matrix', 'cli-smoke', 'deadline', 'gateway', 'key-tags', 'tenant-isolation', 'untagged-keys-refused', 'voc-fair-share', 'voc-lost-events', 'voc-recordings'].map(
  (name) => `test/integration/${name}.test.ts`,
);
/** What only bundle mode has: its wiring checks against edited copies of the template. */
const BUNDLES_ONLY = ['test/integration/bundle-wiring.test.ts'];
/** Reads what every other file's functions called (the run's recorded AWS calls): runs after them. */
const AFTER_THE_OTHERS = ['test/infra/iam-simulation.test.ts'];

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/runtime-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most files wait on I/O (HTTP, DynamoDB Local, child processes): more files than cores keeps
    // both cores busy (with 3, a quarter of the CPU stayed idle on this 2-core machine).
    maxWorkers: 4,
    projects: [
      { extends: true, test: { name: 'sources', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...BUNDLES_ONLY, ...AFTER_THE_OTHERS], env, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'bundles', include: [...BUNDLE_SUITES, ...BUNDLES_ONLY], env: { ...env, CXM_RUNTIME: 'bundles' }, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'iam', include: AFTER_THE_OTHERS, env, sequence: { groupOrder: 1 } } },
    ],
  },
});
