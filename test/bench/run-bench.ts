/**
 * `npm run bench [-- --json] [-- --quick] [-- --runs N] [-- --only section,...]`: every figure
 * against a baseline measured in the same run; a full run writes them to test/performance.md. Starts and stops
 * its own DynamoDB Local (in memory) and servers; progress goes to stderr, the table to stdout,
 * followed with --json by the report as one JSON object on the last line.
 *
 * The figures that depend on the Node version (cold-start imports, warm overhead) are measured in
 * processes of Lambda's Node (infra/lambda-node.ts); the bench itself, the pagination,
 * authorizerScale and documentWrites sections and the throughput servers (the local gateway, as
 * `npm start` runs it) stay on this machine's.
 */

import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { lambdaNode } from '#infra/lambda-node';
import { createTables, type DynamoDbLocal, startDynamoDbLocal } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { StartupError } from '#infra/local/emulators/local-programs';
import { localDynamoVariables, pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { prepareInvocationStore } from '#infra/local/runtime/invocation-scope';
import { issueKey } from '#shared/auth/issue-key';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import { sealingPublicKeyText } from '#shared/domain/webhooks/sealed-secret';
import { parseWholeNumber } from '#shared/settings/parse-whole-number';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { documentClient, documentClientOver } from '#shared/store/dynamo-client';
import type { TableId } from '#shared/store/table-specs';
import { bindTableStores } from '#shared/store/table-stores';
import { benchProgress } from './bench-progress.ts';
import {
  BENCH_COLLECTION,
  BENCH_CONVERSATION,
  BENCH_DOC_ID,
  BENCH_DOCUMENT,
  BENCH_SCOPES,
  BENCH_TENANT,
} from './bench-requests.ts';
import { arrangeColdRequests } from './cold-requests.ts';
import { measureAuthorizerReads } from './measure-authorizer-reads.ts';
import { measureAuthorizerScale } from './measure-authorizer-scale.ts';
import { measureBodyCheck } from './measure-body-check.ts';
import { type BuiltBundle, buildBundles, bundlesReport } from './measure-bundles.ts';
import { measureColdStart } from './measure-cold-start.ts';
import { measureDocumentWrites } from './measure-document-writes.ts';
import { measureImport } from './measure-import.ts';
import { measureOpenSearch } from './measure-opensearch.ts';
import { measurePagination } from './measure-pagination.ts';
import { type BenchServer, measureThroughput, startBenchServer } from './measure-throughput.ts';
import { measureWarmOverheadOn } from './measure-warm-overhead.ts';
import { measureWebhookFairness } from './measure-webhook-fairness.ts';
import { BENCH_WEBHOOK_SCHEDULE_MS, measureWebhooks } from './measure-webhooks.ts';
import { writePerformancePage } from './performance-page.ts';
import { type BenchReport, formatJson, formatReport } from './print-table.ts';

const SECTIONS = [
  'coldStart',
  'bundles',
  'bodyCheck',
  'warmOverhead',
  'throughput',
  'pagination',
  'authorizerScale',
  'import',
  'webhooks',
  'documentWrites',
  'opensearch',
] as const;
type Section = (typeof SECTIONS)[number];

/**
 * Sizes of a full run (most of it goes to seeding 100 000 counted rows, the import
 * section and loading a million rows into OpenSearch) and of `--quick` (a smoke run).
 */
const SIZES = {
  full: {
    coldStartRuns: 11,
    bodyCheckRepeats: 7,
    warmProcesses: 3,
    warmRounds: 60,
    warmBatch: 25,
    seconds: 2,
    rounds: 6,
    rows: 100_000,
    limit: 1000,
    page: 50,
    repeats: 7,
    authRequests: 1000,
    distinctNotes: 1000,
    authScale: { keys: 1000, uses: 5, concurrency: 20 },
    import: { rows: 100_000, rssRows: 500_000 },
    webhooks: { notes: 1000, concurrency: 2 },
    webhookFairness: { endpoints: 10, noisyNotes: 200, calmNotes: 50 },
    documentWrites: { writes: 200, versions: 1000, listSamples: 100 },
    opensearch: {
      sizes: [10_000, 100_000, 1_000_000],
      tenants: { count: 1000, rows: 50 },
      limit: 1000,
      samples: 30,
      indexedRows: 10_000,
      heap: '2g',
    },
  },
  quick: {
    coldStartRuns: 3,
    bodyCheckRepeats: 3,
    warmProcesses: 1,
    warmRounds: 10,
    warmBatch: 25,
    seconds: 1,
    rounds: 1,
    rows: 10_000,
    limit: 100,
    page: 50,
    repeats: 3,
    authRequests: 1000,
    distinctNotes: 200,
    authScale: { keys: 200, uses: 5, concurrency: 20 },
    import: { rows: 5_000, rssRows: 50_000 },
    webhooks: { notes: 200, concurrency: 2 },
    webhookFairness: { endpoints: 5, noisyNotes: 40, calmNotes: 15 },
    documentWrites: { writes: 40, versions: 300, listSamples: 20 },
    opensearch: {
      sizes: [1_000, 10_000],
      tenants: { count: 100, rows: 20 },
      limit: 100,
      samples: 10,
      indexedRows: 2_000,
      heap: '512m',
    },
  },
};

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      runs: { type: 'string' },
      only: { type: 'string' },
      functions: { type: 'string' },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'npm run bench [-- --json] [--quick] [--runs <cold-start runs>] [--only coldStart,bundles,bodyCheck,warmOverhead,throughput,pagination,authorizerScale,import,webhooks,documentWrites,opensearch]\n' +
        '              [--functions <name>,...] [--cpu-prof <directory>]\n' +
        '  --functions  the cold-start rows to measure (each against the baseline), e.g. mcpBots,rotateWebhookSecret\n' +
        "  --cpu-prof   after the rounds, profile each measured row's cold request once, with its cache, into <directory>\n",
    );
    process.exit(0);
  }
  const sizes = { ...SIZES[values.quick ? 'quick' : 'full'] };
  if (values.runs !== undefined) {
    const runs = parseWholeNumber(values.runs, 1, 100);
    if (runs === undefined) throw new StartupError(`--runs ${values.runs}: give a whole number from 1 to 100`);
    sizes.coldStartRuns = runs;
  }
  const only = values.only === undefined ? [...SECTIONS] : values.only.split(',').map((name) => name.trim());
  const unknown = only.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new StartupError(`--only: unknown section(s) ${unknown.join(', ')}; choose from ${SECTIONS.join(', ')}`);
  const functions = values.functions?.split(',').map((name) => name.trim());
  return {
    json: values.json,
    quick: values.quick,
    sizes,
    sections: new Set(only as Section[]),
    ...(functions && { functions: new Set(functions) }),
    ...(values['cpu-prof'] !== undefined && { profileDir: resolve(values['cpu-prof']) }),
  };
}

/** What the bench's keys are tagged under, and its authorizer checks tags with. */
const BENCH_KEY_TAG_SECRET = 'bench-key-tag-secret-0123456789abcdefghijklmnop';
const BENCH_WEBHOOK_SECRET_KEY = 'bench-webhook-secret-key-0123456789abcdefghijklmnop';

/**
 * Set before any handler module loads (they read it at import): logs and metrics silent, so
 * nothing but the report reaches stdout; Node 20's SDK warning off (Lambda runs Node 24).
 */
function setBenchEnvironment(): void {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.CXM_CURSOR_SECRET = 'bench-cursor-secret-0123456789abcdefghijklmnop';
  process.env.CXM_KEY_TAG_SECRET = BENCH_KEY_TAG_SECRET;
  process.env.CXM_WEBHOOK_SECRET_KEY = BENCH_WEBHOOK_SECRET_KEY;
  // What a deploy gives the registration and the rotation: the key's public key.
  process.env.CXM_WEBHOOK_SEALING_KEY = sealingPublicKeyText(BENCH_WEBHOOK_SECRET_KEY);
  process.env.CXM_REPORTING_BACKEND = 'dynamodb';
}

/**
 * The cold-start section's rows: every bundle, or the baseline and the rows `names` (--functions) gives.
 *
 * @example coldStartBundles(bundles, new Set(['mcpBots'])) // the baseline and mcpBots
 */
function coldStartBundles(bundles: BuiltBundle[], names: ReadonlySet<string> | undefined): BuiltBundle[] {
  if (names === undefined) return bundles;
  const rows = bundles.filter((bundle) => bundle.kind !== 'baseline');
  const unknown = [...names].filter((name) => !rows.some((bundle) => bundle.name === name));
  if (unknown.length > 0)
    throw new StartupError(
      `--functions: unknown row(s) ${unknown.join(', ')}; choose from ${rows.map((bundle) => bundle.name).join(', ')}`,
    );
  return bundles.filter((bundle) => bundle.kind === 'baseline' || names.has(bundle.name));
}

/** Everything the bench started, undone on every way out (Ctrl-C included). */
class Resources {
  private readonly children = new Set<ChildProcess>();
  private readonly dirs = new Set<string>();
  dynamo: DynamoDbLocal | undefined;
  /** Stores a section starts for itself. */
  readonly stores = new Set<DynamoDbLocal>();

  track = (child: ChildProcess) => {
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
  };

  dir(path: string): void {
    this.dirs.add(path);
  }

  /** Synchronous, so it also runs from an `exit` handler. */
  releaseNow(): void {
    for (const child of this.children) child.kill('SIGKILL');
    this.dynamo?.killNow();
    for (const store of this.stores) store.killNow();
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
    this.dirs.clear();
  }

  async release(): Promise<void> {
    for (const child of this.children) child.kill('SIGTERM');
    await Promise.all([this.dynamo?.stop(), ...[...this.stores].map((store) => store.stop())]);
    this.releaseNow();
  }
}

async function main(): Promise<number> {
  // The gateways this process serves run the sources runtime: before any AWS SDK call (invocation-scope.ts).
  await prepareInvocationStore();
  const options = parseOptions(process.argv.slice(2));
  setBenchEnvironment();
  const startedAtMs = Date.now();
  const progress = benchProgress(startedAtMs);
  const resources = new Resources();
  process.on('exit', () => resources.releaseNow());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      progress(`${signal}: stopping`);
      void resources.release().finally(() => process.exit(130));
    });
  }
  const { sizes, sections } = options;
  const node = lambdaNode();
  const report: BenchReport = {
    node: {
      version: node.version,
      pinned: node.pinned,
      benchVersion: process.version,
      ...(node.warning && { warning: node.warning }),
    },
    coldStart: null,
    bundles: null,
    bodyCheck: null,
    warmOverhead: null,
    throughput: null,
    pagination: null,
    reportingTotals: null,
    authorizerScale: null,
    import: null,
    webhooks: null,
    documentWrites: null,
    opensearch: null,
  };
  progress(
    `${options.quick ? 'quick' : 'full'} run on ${availableParallelism()} cores; measured processes on node ${node.version}${node.pinned ? " (Lambda's)" : ''}, the bench on ${process.version}`,
  );
  if (node.warning) progress(node.warning);

  try {
    let bundles: BuiltBundle[] = [];
    if (sections.has('bundles') || sections.has('coldStart')) {
      progress('building every function bundle and the baseline');
      const built = await buildBundles(undefined, { peers: sections.has('coldStart') });
      resources.dir(built.outdir);
      bundles = built.bundles;
      if (sections.has('bundles')) report.bundles = bundlesReport(bundles);
    }
    if (sections.has('bodyCheck')) {
      progress(`body check: hostile 1 MiB bodies in a process of node ${node.version}`);
      report.bodyCheck = await measureBodyCheck(node.execPath, sizes.bodyCheckRepeats, resources.track);
    }
    // The sections after this one need DynamoDB Local; bundles and bodyCheck do not.
    if ([...sections].every((name) => name === 'bundles' || name === 'bodyCheck')) return print(report, options.json);

    progress('starting DynamoDB Local (in memory)');
    resources.dynamo = await startDynamoDbLocal({});
    const tables = (await createTables(resources.dynamo, 'bench')) as Record<TableId, string>;
    pointAtLocalDynamo(resources.dynamo, tables);
    const stores = bindTableStores(documentClient(), tables);
    const createKey = async () =>
      (
        await issueKey(
          stores.keys,
          { tenants: [BENCH_TENANT], scopes: BENCH_SCOPES, name: 'bench' },
          { tagSecret: BENCH_KEY_TAG_SECRET },
        )
      ).key;
    await stores.documents.replace(BENCH_TENANT, BENCH_COLLECTION, BENCH_DOC_ID, JSON.stringify(BENCH_DOCUMENT));
    await stores.conversations.putConversation(BENCH_TENANT, conversationWithDefaults({ id: BENCH_CONVERSATION }));

    // First: a cold request should find DynamoDB Local as a new Lambda environment finds
    // DynamoDB, not busy with the other sections' thousands of writes.
    if (sections.has('coldStart')) {
      progress('cold start: arranging what the first requests read');
      const requests = await arrangeColdRequests(resources.dynamo, tables);
      try {
        report.coldStart = await measureColdStart(
          coldStartBundles(bundles, options.functions),
          sizes.coldStartRuns,
          node.execPath,
          progress,
          requests,
          options.profileDir,
        );
      } finally {
        await requests.close();
      }
    }
    // Seeding first: after the throughput runs' thousands of transactions, DynamoDB Local takes
    // four to five times as long to take the same 100 000 rows.
    if (sections.has('pagination')) {
      const authorizer = await measureAuthorizerReads(tables.keys, createKey, sizes.authRequests, progress, {
        notes: sizes.distinctNotes,
        addConversation: (id) => stores.conversations.putConversation(BENCH_TENANT, conversationWithDefaults({ id })),
      });
      const { totals, ...pages } = await measurePagination(
        tables,
        { rows: sizes.rows, limit: sizes.limit, page: sizes.page, repeats: sizes.repeats },
        progress,
      );
      report.pagination = { ...pages, authorizer };
      report.reportingTotals = totals;
    }
    if (sections.has('authorizerScale')) {
      const createTenantKey = async (tenantId: string) =>
        (
          await issueKey(
            stores.keys,
            { tenants: [tenantId], scopes: BENCH_SCOPES, name: 'bench' },
            { tagSecret: BENCH_KEY_TAG_SECRET },
          )
        ).key;
      report.authorizerScale = await measureAuthorizerScale(tables.keys, createTenantKey, sizes.authScale, progress);
    }
    // Before the throughput runs, for the same reason as the seeding above.
    if (sections.has('import'))
      report.import = await measureImport(
        { endpoint: resources.dynamo.endpoint, credentials: resources.dynamo.credentials, tables },
        sizes.import,
        progress,
        resources.track,
      );
    // Before the throughput runs too: a delivery's latency should not measure a table grown by them.
    if (sections.has('webhooks')) {
      // A store of its own: DynamoDB Local reads every table's stream slower for each record any
      // stream holds, and the sections before leave hundreds of thousands (the import's above all).
      progress('webhooks: starting a DynamoDB Local of its own and a local gateway with a schedule of seconds');
      const own = await startDynamoDbLocal({});
      resources.stores.add(own);
      const ownTables = (await createTables(own, 'bench-hooks')) as Record<TableId, string>;
      const ownClient = new DynamoDBClient({
        endpoint: own.endpoint,
        region: LOCAL_REGION,
        credentials: { ...own.credentials },
      });
      const hookStores = bindTableStores(documentClientOver(ownClient), ownTables);
      const gateway = await startBenchServer('webhooks', resources.track, {
        ...localDynamoVariables(own, ownTables),
        [FUNCTION_ENV.webhookRetrySchedule]: BENCH_WEBHOOK_SCHEDULE_MS.join(','),
      });
      try {
        const key = (
          await issueKey(
            hookStores.keys,
            {
              tenants: [BENCH_TENANT],
              scopes: ['cxm:conversations.write', 'webhooks:endpoints.write'],
              name: 'bench webhooks',
            },
            { tagSecret: BENCH_KEY_TAG_SECRET },
          )
        ).key;
        report.webhooks = await measureWebhooks(gateway.url, key, sizes.webhooks, progress, (id) =>
          hookStores.conversations.putConversation(BENCH_TENANT, conversationWithDefaults({ id })),
        );
        const fairnessTenant = async (tenantId: string) => {
          const conversationId = `${tenantId}-conversation`;
          await hookStores.conversations.putConversation(tenantId, conversationWithDefaults({ id: conversationId }));
          const issued = await issueKey(
            hookStores.keys,
            { tenants: [tenantId], scopes: ['cxm:conversations.write', 'webhooks:endpoints.write'], name: tenantId },
            { tagSecret: BENCH_KEY_TAG_SECRET },
          );
          return { tenantId, key: issued.key, conversationId };
        };
        report.webhooks.fairness = await measureWebhookFairness(
          gateway.url,
          await fairnessTenant('bench-noisy'),
          await fairnessTenant('bench-calm'),
          sizes.webhookFairness,
          progress,
        );
      } finally {
        gateway.stop();
        ownClient.destroy();
        resources.stores.delete(own);
        await own.stop();
      }
    }
    // Before the throughput runs too, on a store of its own: a write's latency should measure the
    // write, not tables the other sections grew.
    if (sections.has('documentWrites')) {
      progress('document writes: starting a DynamoDB Local of its own');
      const own = await startDynamoDbLocal({});
      resources.stores.add(own);
      try {
        report.documentWrites = await measureDocumentWrites(own, sizes.documentWrites, progress);
      } finally {
        resources.stores.delete(own);
        await own.stop();
      }
    }
    if (sections.has('warmOverhead')) {
      progress(
        `warm overhead: ${sizes.warmProcesses} processes a route, one route a process, on node ${node.version}, one after the other`,
      );
      report.warmOverhead = await measureWarmOverheadOn(
        node.execPath,
        { processes: sizes.warmProcesses, rounds: sizes.warmRounds, batch: sizes.warmBatch },
        startedAtMs,
        resources.track,
      );
    }
    if (sections.has('throughput')) {
      progress('throughput: starting the local gateway and the bare server');
      const servers: BenchServer[] = [];
      try {
        const [gateway, bare] = await Promise.all([
          startBenchServer('gateway', resources.track),
          startBenchServer('bare', resources.track),
        ]);
        servers.push(gateway, bare);
        report.throughput = await measureThroughput(
          { gateway: gateway.url, bare: bare.url },
          await createKey(),
          { seconds: sizes.seconds, rounds: sizes.rounds, connections: 10 },
          progress,
        );
      } finally {
        for (const server of servers) server.stop();
      }
    }
    // Last: the engine and its million rows take the machine for a few minutes of their own.
    if (sections.has('opensearch'))
      report.opensearch = await measureOpenSearch(
        { endpoint: resources.dynamo.endpoint, credentials: resources.dynamo.credentials },
        sizes.opensearch,
        progress,
      );
    // The performance page holds the latest full run alone: a part or a smoke run leaves it be.
    if (!options.quick && sections.size === SECTIONS.length) {
      const seconds = (Date.now() - startedAtMs) / 1000;
      progress(`wrote ${writePerformancePage(report, { startedAt: new Date(startedAtMs), seconds })}`);
    }
    return print(report, options.json);
  } finally {
    progress('stopping');
    await resources.release();
    progress(`done in ${((Date.now() - startedAtMs) / 1000).toFixed(0)} s`);
  }
}

/** The table; with --json the report follows it as one JSON object on the last line. */
function print(report: BenchReport, json: boolean): number {
  process.stdout.write(formatReport(report));
  if (json) process.stdout.write(`\n${formatJson(report)}`);
  return 0;
}

try {
  // Open SDK sockets and timers would keep the process alive after the report.
  process.exit(await main());
} catch (error) {
  console.error(error instanceof StartupError ? `bench: ${error.message}` : error);
  process.exit(1);
}
