import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { TEST_ENV } from './support/test-env.ts';

// The global setup runs in this process: keep it as quiet as the workers.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// npm puts node_modules/.bin first on PATH, and Lambda's Node package links `node` there: a test
// that starts `node` or `npm` (npm start, the CLI) must get this machine's Node, as a user's shell
// does, so its directory goes first for every process of the run.
process.env.PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);

const env = TEST_ENV;

/**
 * The suites that prove behaviour over HTTP through the local gateway: the bundles project runs
 * them again with every function served by its synthesized bundle on Lambda's Node
 * (infra/local/README.md, bundle mode), so anything wired only in CDK is proven too. Unit, contract
 * and infra tests run once, and so do search-faults (it points the sources at a stub OpenSearch
 * in-process; the local stage has no OpenSearch) and store-outage (it stops and restarts a DynamoDB
 * Local of its own, two JVM starts; the bundles meet store faults in store-faults, gateway-faults
 * and deadline).
 */
const HTTP_SUITES = [
  'auth',
  'authorization-matrix',
  'cli-smoke',
  'concurrency',
  'deadline',
  'gateway',
  'gateway-faults',
  'hostile-input',
  'idempotency',
  'idempotency-expiry',
  'key-tags',
  'load',
  'mcp',
  'notes',
  'provisioning',
  'reporting',
  'store-faults',
  'tenant-isolation',
  'untagged-keys-refused',
  'voc-jobs',
  'voc-recordings',
  'voc-lost-events',
  'voc-fair-share',
  'conditional-requests',
].map((name) => `test/integration/${name}.test.ts`);
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
      { extends: true, test: { name: 'bundles', include: [...HTTP_SUITES, ...BUNDLES_ONLY], env: { ...env, CXM_RUNTIME: 'bundles' }, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'iam', include: AFTER_THE_OTHERS, env, sequence: { groupOrder: 1 } } },
    ],
  },
});
