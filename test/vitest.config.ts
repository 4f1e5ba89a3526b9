import { readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { FRESH_PER_FILE_ENV, TEST_ENV } from './support/test-env.ts';

// The global setup runs in this process: keep it as quiet as the workers.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// A test that starts `node` (npm start, the CLI) gets the Node this run is on (Lambda's, from
// node_modules/.bin, under npm test), also when vitest is started some other way. Once: vitest
// loads this file again for each project.
const nodeDir = dirname(process.execPath);
if (process.env.PATH?.split(delimiter)[0] !== nodeDir) process.env.PATH = [nodeDir, process.env.PATH].join(delimiter);

const env = TEST_ENV;

const root = fileURLToPath(new URL('..', import.meta.url));

/** The test files under `dirs`, relative to the project root, each with its text. */
const testFilesUnder = (dirs: readonly string[]) =>
  dirs
    .flatMap((dir) => (readdirSync(`${root}/${dir}`, { recursive: true }) as string[]).map((name) => `${dir}/${name}`))
    .filter((file) => file.endsWith('.test.ts'))
    .sort()
    .map((file) => ({ file, text: readFileSync(`${root}/${file}`, 'utf8') }));

/**
 * The groups a test file runs in, from the `@group` tag of its first comment; a file without one
 * runs with the sources only. The groups (test/README.md, "How the run is arranged"):
 * - `sources`: every function served from the TypeScript sources in the gateway's process.
 * - `bundles`: every function served by its synthesized bundle on Lambda's Node. The handler code is
 *   the same in both runtimes; what only the bundles can break is the wiring CDK does, so the files
 *   tagged so are those that cross it: every route once (cli-smoke), which function serves which
 *   method and authorizes it (authorization-matrix, gateway), the tenant from the authorizer's
 *   context to every store call (tenant-isolation), the stage secret the authorizer reads through
 *   Secrets Manager (key-tags, untagged-keys-refused), the webhook functions as the template's
 *   event source mappings feed them, both MCP eras with real clients; and, in bundles only, the
 *   wiring checks against edited copies of the template and every bundle imported alone.
 * - `bundles-last`: the official MCP conformance suite on the bundles, last and alone: its probes
 *   give the server 1.5 s for some answers, which a busy bundles group can pass.
 * - `opensearch`: the reporting suites with the lists searching the run's OpenSearch engine, fed by
 *   the indexer from the reporting table's stream, as `npm start` takes it.
 * - `contended`: requests that must finish within the function's 10 s deadline while many contend
 *   for one item or one store; on two cores shared with three other files they could be starved
 *   past it and answer 504, right for the API and wrong for the test. Two at a time, after the
 *   sources and before the IAM simulation, which reads their calls too.
 * - `iam`: the IAM simulation, which reads what every other file's functions called: after them.
 */
const GROUP_TAG = /^\s*\*\s*@group\s+([a-z\s-]+?)\s*$/m;
const GROUPS = ['sources', 'bundles', 'bundles-last', 'opensearch', 'contended', 'iam'] as const;
type Group = (typeof GROUPS)[number];
const TEST_FILES = testFilesUnder(['test']).map(({ file, text }) => {
  const tag = GROUP_TAG.exec(text.slice(0, text.indexOf('*/') + 2))?.[1];
  const groups = tag ? tag.split(/\s+/) : ['sources'];
  const unknown = groups.filter((group) => !(GROUPS as readonly string[]).includes(group));
  if (unknown.length > 0) throw new Error(`${file}: @group ${unknown.join(', ')} is none of ${GROUPS.join(', ')}`);
  return { file, text, groups: groups as Group[] };
});
const inGroup = (group: Group) => TEST_FILES.filter(({ groups }) => groups.includes(group)).map(({ file }) => file);
const NOT_WITH_THE_SOURCES = TEST_FILES.filter(({ groups }) => !groups.includes('sources')).map(({ file }) => file);
const AFTER_THE_OTHERS = inGroup('iam');

/**
 * The files that take longest, longest first: they start a browser, `npm start`, a store or the
 * CLI of their own, or send thousands of requests. Vitest orders a group's files by the durations
 * of the last run, which a fresh clone (CI) has none of; it then orders them by size, and a short
 * file that runs long (the /docs page in Chromium) started last and drew the group out by a minute.
 */
const LONGEST_FIRST = [
  'test/browser/docs-page.test.ts',
  'test/integration/npm-start.test.ts',
  'test/integration/cli-import.test.ts',
  'test/integration/hostile-input.test.ts',
  'test/integration/reporting-counts.test.ts',
  'test/integration/local-store-access.test.ts',
  'test/integration/provisioning.test.ts',
  'test/integration/authorization-matrix.test.ts',
  'test/integration/tenant-isolation.test.ts',
  'test/integration/cli-smoke.test.ts',
];

/**
 * Vitest's order, but the IAM simulation first in its group (a short file started after all the
 * long bundles files ran alone at the end of the run, its start longer than its tests), then
 * LONGEST_FIRST.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const path = relative(root, file.moduleId);
      if (AFTER_THE_OTHERS.includes(path)) return -1;
      const index = LONGEST_FIRST.indexOf(path);
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: files of one rank keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * The files that start no gateway and no process of the API (the unit tests, the checks of the
 * synthesized templates, the contract's own checks) run with their worker's modules shared from
 * one file to the next (`isolate: false`): each file's process would otherwise import aws-cdk-lib,
 * the AWS SDK and the route table again, about 1.5 s apiece. A file keeps a module graph of its
 * own when it mocks a module (`vi.mock`: a module another file loaded first would escape its mock)
 * or points one of the process's AWS clients somewhere (`pointAtLocalDynamo`,
 * `startCountedSecretsManager` or `useStageSecretInSecretsManager`: each client is made once per
 * module graph, so it would keep the first file's endpoint).
 */
const SHARED_MODULE_DIRS = ['test/unit', 'test/infra', 'test/contract'];
const MOCKS_A_MODULE = /\bvi\.(?:do)?[mM]ock\(/;
const POINTS_A_CLIENT = /\b(?:pointAtLocalDynamo|startCountedSecretsManager|useStageSecretInSecretsManager)\(/;
const SHARED_MODULE_FILES = testFilesUnder(SHARED_MODULE_DIRS)
  .filter(({ file }) => !NOT_WITH_THE_SOURCES.includes(file))
  .filter(({ text }) => !MOCKS_A_MODULE.test(text) && !POINTS_A_CLIENT.test(text))
  .map(({ file }) => file);

/**
 * The files that mock a module (`vi.mock`) keep a process of their own: a mock stays registered in
 * a worker that goes on to other files. Every other sources file shares its worker's process with
 * the next (`isolate: false`), each with its own instances of the project's modules and the
 * environment the worker began with (test/support/runtime-setup.ts): a process and the packages'
 * imports per file cost the loop about 100 CPU-s.
 */
const MOCKING_FILES = testFilesUnder(['test/integration', 'test/browser', ...SHARED_MODULE_DIRS])
  .filter(({ text }) => MOCKS_A_MODULE.test(text))
  .map(({ file }) => file);

export default defineConfig({
  root,
  // The global setup runs in vitest's own environment, which resolves packages by their `module`
  // field: the AWS SDK's ESM builds (some 1 200 files) were then transformed one by one in the main
  // process, twice, 8 s before any worker started. Resolved as Node does (the workers do already),
  // the SDK's CommonJS builds are loaded by Node itself.
  environments: { __vitest__: { resolve: { mainFields: [], conditions: ['node'] } } },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/runtime-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    // Most files wait on I/O (HTTP, DynamoDB Local, child processes): more files than cores keeps
    // both cores busy (with 3, a quarter of the CPU stayed idle on this 2-core machine).
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'sources',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...NOT_WITH_THE_SOURCES, ...SHARED_MODULE_FILES, ...MOCKING_FILES],
          isolate: false,
          env: { ...env, [FRESH_PER_FILE_ENV]: '1' },
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'opensearch',
          include: inGroup('opensearch'),
          env: { ...env, CXM_REPORTING_BACKEND: 'opensearch' },
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'mocks', include: MOCKING_FILES, env, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: { name: 'modules', include: SHARED_MODULE_FILES, isolate: false, env, sequence: { groupOrder: 0 } },
      },
      // After the others: the run's synthesis of the local stage is made meanwhile (global-setup.ts).
      {
        extends: true,
        test: {
          name: 'bundles',
          include: inGroup('bundles'),
          // One execution environment per function: these files prove the wiring, not how a
          // function scales, and each environment more is a cold start (Node 24 importing a
          // bundle). The group then costs 110 CPU-s instead of 127 (60 s instead of 69 s).
          env: { ...env, CXM_RUNTIME: 'bundles', CXM_FUNCTION_CONCURRENCY: '1' },
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'bundles-last',
          include: inGroup('bundles-last'),
          env: { ...env, CXM_RUNTIME: 'bundles' },
          sequence: { groupOrder: 3 },
        },
      },
      // Beside the bundles, first (LongestFirst): it reads what the sources gateways recorded,
      // and bundles record nothing.
      { extends: true, test: { name: 'iam', include: AFTER_THE_OTHERS, env, sequence: { groupOrder: 2 } } },
      // Between the sources and the bundles: two at a time, with nothing else running.
      {
        extends: true,
        test: { name: 'contended', include: inGroup('contended'), env, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
