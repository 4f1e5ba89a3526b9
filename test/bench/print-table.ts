/**
 * The bench's output: a table for people (stdout), or the report as one JSON object on the last
 * line (`--json`) for scripts. Both are built from the same report.
 */

import type { LambdaNode } from '#infra/lambda-node';
import type { Goal } from './bench-stats.ts';
import { peerStandings } from './compare-peers.ts';
import type { ColdProfile } from './cpu-profile-summary.ts';
import type { AuthorizerReadsFigures } from './measure-authorizer-reads.ts';
import type { AuthorizerScaleFigures } from './measure-authorizer-scale.ts';
import type { BodyCheckFigures } from './measure-body-check.ts';
import type { BundlesReport } from './measure-bundles.ts';
import type { ColdStartEntry, ColdStartReport } from './measure-cold-start.ts';
import type { DocumentWritesFigures, WriteRow, WriteSide } from './measure-document-writes.ts';
import type { ImportFigures } from './measure-import.ts';
import type { OpenSearchFigures } from './measure-opensearch.ts';
import type { PaginationFigures, ReportingTotalsFigures } from './measure-pagination.ts';
import type { ThroughputReport } from './measure-throughput.ts';
import type { WarmOverheadReport } from './measure-warm-overhead.ts';
import type { WebhookFairnessFigures } from './measure-webhook-fairness.ts';
import type { WebhooksFigures } from './measure-webhooks.ts';

/** Which Node measured what: the sections' figures depend on its version. */
export type BenchNode = Omit<LambdaNode, 'execPath'> & {
  /** The bench's own Node, which runs the pagination section and the throughput servers. */
  benchVersion: string;
};

/** The five main figures, and the Node that measured them; a section left out with `--only` is null. */
export interface BenchReport {
  node: BenchNode;
  coldStart: ColdStartReport | null;
  bundles: BundlesReport | null;
  /** The JSON body check on hostile 1 MiB bodies, time and memory. */
  bodyCheck: BodyCheckFigures | null;
  warmOverhead: WarmOverheadReport | null;
  throughput: ThroughputReport | null;
  pagination: (Omit<PaginationFigures, 'totals'> & { authorizer: AuthorizerReadsFigures }) | null;
  /** The first page with its total, a 1 000-row window against a 100 000-row one. */
  reportingTotals: ReportingTotalsFigures | null;
  /** Authorizer store reads per 1 000 requests of many distinct keys, default cache TTL. */
  authorizerScale: AuthorizerScaleFigures | null;
  /** The real `cxm import`'s rows per second into DynamoDB Local, and its peak memory on a large file. */
  import: ImportFigures | null;
  /** Notes to a receiver failing a fifth of attempts: none lost, each verified, commit to receipt. */
  webhooks: WebhooksFigures | null;
  /** Provisioning writes with the document's history against the same writes before it, and the versions list at 1 000 versions. */
  documentWrites: DocumentWritesFigures | null;
  /** The lists on the local OpenSearch engine at a million rows and a thousand tenants, and the indexer's pace. */
  opensearch: OpenSearchFigures | null;
}

/** Columns padded to their widest cell; a column whose header starts with `>` is right-aligned. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const right = headers.map((header) => header.startsWith('>'));
  const titles = headers.map((header) => header.replace(/^>/, ''));
  const widths = titles.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (right[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(titles), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export function formatGoal(goal: Goal | undefined, unit = 'x'): string {
  if (!goal) return '-';
  return `${goal.kind === 'max' ? '<=' : '>='} ${goal.limit}${unit} ${goal.met ? 'met' : 'NOT MET'}`;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const x = (ratio: number) => `${ratio.toFixed(2)}x`;

function bundlesSection(report: BundlesReport): string {
  return [
    `Bundles: minified CommonJS, the stack's esbuild settings (baseline: bare handler + DynamoDB document client, bundled plain: minified, no keepNames, ${kb(report.baseline.bytes)})`,
    formatTable(
      ['function', '>size', '>vs baseline', '>validators', 'largest parts'],
      report.functions.map((entry) => [
        entry.function,
        kb(entry.bytes),
        x(entry.ratio),
        entry.validatorBytes > 0 ? kb(entry.validatorBytes) : '-',
        Object.entries(entry.largest)
          .slice(0, 3)
          .map(([origin, bytes]) => `${origin} ${kb(bytes)}`)
          .join(', '),
      ]),
    ),
  ].join('\n');
}

function coldStartSection(report: ColdStartReport, node: BenchNode): string {
  // Ours first, then the peers, named as such: they are what the figures above are held against.
  const ours = report.functions.filter((entry) => entry.kind !== 'peer');
  const peers = report.functions.filter((entry) => entry.kind === 'peer');
  const ratioOrDash = (ratio: number | undefined) => (ratio === undefined ? '-' : x(ratio));
  const row = (entry: ColdStartEntry, name: string) => [
    name,
    entry.initCpuMs.toFixed(1),
    x(entry.ratio),
    formatGoal(entry.initGoal),
    entry.coldRequestCpuMs === undefined ? '-' : entry.coldRequestCpuMs.toFixed(1),
    entry.coldRequestMs === undefined ? '-' : entry.coldRequestMs.toFixed(1),
    ratioOrDash(entry.coldRequestRatio),
    formatGoal(entry.coldRequestGoal),
    entry.withoutCache ? ratioOrDash(entry.withoutCache.coldRequestRatio ?? entry.withoutCache.ratio) : '-',
    entry.compileCache ?? (entry.withoutCache ? 'no init line' : '-'),
    entry.packages
      ? Object.entries(entry.packages)
          .map(([name, version]) => `${name} ${version}`)
          .join(', ')
      : '',
  ];
  return [
    `Cold start on Node ${node.version}, with Lambda's options: a fresh process imports the function's entry as the stack ships it (init: the entry turns on the asset's compile cache and loads the bundle), then answers its first request against DynamoDB Local (cold request = init + that request). CPU time, median of ${report.runs} runs, each paired with a baseline process just before it (baseline: init ${report.baselineCpuMs} ms CPU, cold request ${report.baselineColdRequestCpuMs} ms CPU, ${report.baselineColdRequestMs} ms wall). Our functions are bundled with the stack's esbuild settings and measured with their compile cache and without it (the cold request's ratio, or the init's where there is no request), in the same rounds; the baseline (a bare handler) and the peers (its handler and request in another framework) are bare bundles built plain, as anyone would bundle a handler (minified, no keepNames), without a cache. Goals: init <= 1.05x (1.15x for a list of an OpenSearch stage); cold request with the cache <= 0.90x the bare handler (a reporting list 1.0x, MCP 1.3x)`,
    formatTable(
      [
        'function',
        '>init ms CPU',
        '>vs baseline',
        'init goal',
        '>cold req ms CPU',
        '>wall ms',
        '>vs baseline',
        'cold request goal',
        '>without cache',
        'cache',
        'note',
      ],
      [
        ...ours.map((entry) => row(entry, entry.function)),
        ...peers.map((entry) => row(entry, `peer: ${entry.function}`)),
      ],
    ),
  ].join('\n');
}

/** The largest shares, as `name 1.2, name 0.8`. */
function topShares(shares: ReadonlyArray<{ name: string; ms: number }>, count: number): string {
  return shares
    .slice(0, count)
    .map(({ name, ms }) => `${name} ${ms.toFixed(1)}`)
    .join(', ');
}

/** Where each profiled cold request's CPU goes, beside the baseline's profiled the same way. */
function coldProfileSection(report: ColdStartReport): string | undefined {
  const rows = report.functions.filter((entry) => entry.profile);
  if (!report.baselineProfile || rows.length === 0) return undefined;
  const line = (name: string, profile: ColdProfile) => [
    name,
    profile.sampledMs.toFixed(1),
    profile.bundle.reduce((sum, share) => sum + share.ms, 0).toFixed(1),
    profile.builtins.reduce((sum, share) => sum + share.ms, 0).toFixed(1),
    profile.compileMs.toFixed(1),
    profile.gcMs.toFixed(1),
    profile.nodeMs.toFixed(1),
    topShares(profile.bundle, 4),
    topShares(profile.builtins, 4),
  ];
  return [
    `Where the cold requests that missed their goal spend their CPU: V8's CPU profile of the cold request (--cpu-prof, 100 us samples, self time), with the cache, averaged over ${report.baselineProfile.processes} processes, beside the baseline's; ms, the profiler's own cost included, so for comparing parts. Bundle code by npm package (source map; project: ours); built-ins: Node's modules loaded on demand, each with what it loads`,
    formatTable(
      [
        'function',
        '>sampled',
        '>bundle code',
        '>built-ins',
        '>compiling',
        '>GC',
        '>rest of Node',
        'bundle code by package',
        'built-ins by module',
      ],
      [line('baseline', report.baselineProfile), ...rows.map((entry) => line(entry.function, entry.profile!))],
    ),
  ].join('\n');
}

/** Where each profiled route's chain spends more than the bare function, per request. */
function warmProfileSection(report: WarmOverheadReport): string | undefined {
  const routes = report.routes.filter((entry) => entry.profile);
  if (routes.length === 0) return undefined;
  return [
    `Where the warm overhead goes, for the routes that missed their goal: the inspector's CPU profile (50 us samples, self time) of ${routes[0]!.profile!.calls} requests through the chain and as many through the bare function, in slices that take turns; us per request, the profiler's own cost included. Extra: the chain's time less the bare function's, by where the code is (an npm package, one of our files, Node)`,
    formatTable(
      ['route', '>chain us', '>bare us', "chain's extra by origin (largest first)"],
      routes.map(({ route, profile }) => [
        route,
        profile!.chainUs.toFixed(1),
        profile!.bareUs.toFixed(1),
        profile!.extra
          .filter(({ us }) => us >= 0.5)
          .slice(0, 8)
          .map(({ origin, us }) => `${origin} +${us.toFixed(1)}`)
          .join(', '),
      ]),
    ),
  ].join('\n');
}

/** One line per peer: which of our functions start faster than it, in this run. */
export function peersSummary(report: ColdStartReport): string | undefined {
  const standings = peerStandings(report);
  if (standings.length === 0) return undefined;
  const lines = standings.map(({ peer, ratio, ahead, notAhead }) => {
    const total = ahead.length + notAhead.length;
    const verdict =
      notAhead.length === 0
        ? `all ${total} ahead`
        : ahead.length === 0
          ? `none of ${total} ahead`
          : `${ahead.length} of ${total} ahead; not ahead: ${notAhead.join(', ')}`;
    return `  ${peer} (${x(ratio)}): ${verdict}`;
  });
  return [`Against the peers (cold request CPU vs the baseline's; ahead = lower ratio), our functions:`, ...lines].join(
    '\n',
  );
}

/** The report's first line: which Node measured, and which sections ran on the bench's own Node. */
function nodeHeader(report: BenchReport): string {
  const { node } = report;
  const onMeasured = [report.coldStart && 'cold start', report.warmOverhead && 'warm overhead'].filter(Boolean);
  const onBench = [
    report.pagination && 'pagination',
    report.throughput && 'throughput',
    report.authorizerScale && 'authorizer scale',
    report.import && 'import',
    report.webhooks && 'webhooks',
    report.documentWrites && 'document writes',
    report.opensearch && 'opensearch',
  ].filter(Boolean);
  const parts = [
    onMeasured.length > 0 &&
      `${onMeasured.join(' and ')} measured on Node ${node.version} (${node.pinned ? "Lambda's, pinned" : "NOT Lambda's: the pinned Node is missing"})`,
    onBench.length > 0 &&
      `${onBench.join(' and ')} on the bench's Node ${node.benchVersion} (in process / the local gateway as npm start runs it)`,
  ].filter(Boolean);
  return `Node: ${parts.length > 0 ? parts.join('; ') : `bench on ${node.benchVersion}`}.`;
}

function warmSection(report: WarmOverheadReport): string {
  return [
    `Warm overhead: CPU time per request in process, chain vs bare function with the same store call (canned DynamoDB answers; median of ${report.rounds} batches of ${report.batch}, in ${report.processes} ${report.processes === 1 ? 'process' : 'processes'} a route, each running that route alone as Lambda runs one function per route${report.processes === 1 ? '' : ': the median process'}). Each request is invoked as Lambda's runtime invokes it: its event fetched over HTTP from a stand-in of the Runtime API in another process, its answer posted back, neither counted. In the store call: how much longer the same DynamoDB call takes made from the chain than from the bare function, of the overhead (wall us inside the SDK's middleware stack, median over rounds of their own after the measured ones). Back to back: the ratio with the requests run one right after the other instead, as no Lambda function runs them (the SDK's working set stays in the CPU's caches)`,
    formatTable(
      [
        'route',
        '>chain us',
        '>bare us',
        '>overhead us',
        '>in the store call',
        '>vs bare',
        'goal',
        'each process',
        '>back to back',
      ],
      report.routes.map((entry) => [
        entry.route,
        entry.chainUs.toFixed(1),
        entry.bareUs.toFixed(1),
        entry.overheadUs.toFixed(1),
        entry.storeCallUs.extra.toFixed(1),
        x(entry.ratio),
        formatGoal(entry.goal),
        entry.ratios.map(x).join(' '),
        x(entry.backToBack),
      ]),
    ),
  ].join('\n');
}

function throughputSection(report: ThroughputReport): string {
  return [
    `Throughput: local gateway vs bare node:http server, same DynamoDB Local (autocannon, ${report.connections} connections, ${report.rounds} x ${report.seconds} s each)`,
    formatTable(
      ['route', '>gateway req/s', '>p50 ms', '>p99 ms', '>bare req/s', '>p50 ms', '>p99 ms', '>ratio', 'goal'],
      report.routes.map((entry) => [
        entry.route,
        entry.gateway.rps.toFixed(0),
        entry.gateway.p50Ms.toFixed(1),
        entry.gateway.p99Ms.toFixed(1),
        entry.bare.rps.toFixed(0),
        entry.bare.p50Ms.toFixed(1),
        entry.bare.p99Ms.toFixed(1),
        x(entry.ratio),
        formatGoal(entry.goal),
      ]),
    ),
  ].join('\n');
}

function paginationSection(
  report: NonNullable<BenchReport['pagination']>,
  totals: BenchReport['reportingTotals'],
): string {
  const { serialise, authorizer } = report;
  return [
    `Pagination: DynamoDB reporting adapter, ${report.windowRows} rows in the window, limit ${report.limit} (seeded in ${report.seedSeconds} s)`,
    formatTable(
      ['figure', '>value', 'goal'],
      [
        ['page 1', `${report.firstPageMs.toFixed(1)} ms`, ''],
        [`page ${report.deepPage}`, `${report.deepPageMs.toFixed(1)} ms`, ''],
        [`page ${report.deepPage} / page 1`, x(report.ratio), formatGoal(report.goal)],
        [
          'items read by DynamoDB: page 1 / deep page',
          `${report.reads.firstPage.items} / ${report.reads.deepPage.items} (${report.reads.firstPage.queries} / ${report.reads.deepPage.queries} queries)`,
          '',
        ],
        ...(totals
          ? [
              [`page 1 with the total, ${totals.smallRows}-row window`, `${totals.smallMs.toFixed(1)} ms`, ''],
              [
                `page 1 with the total, ${totals.largeRows}-row window (maintained counts)`,
                `${totals.largeMs.toFixed(1)} ms`,
                '',
              ],
              ['  large / small (reportingTotals)', x(totals.ratio), formatGoal(totals.goal)],
            ]
          : []),
        [`serialise ${serialise.rows} rows (${kb(serialise.bodyBytes)} body)`, `${serialise.bodyMs.toFixed(1)} ms`, ''],
        ['  + Lambda response envelope', `${serialise.envelopeMs.toFixed(1)} ms`, ''],
        ['  (parse + stringify every row instead)', `${serialise.parseAndStringifyMs.toFixed(1)} ms`, ''],
        [`authorizer reads, ${authorizer.requests} requests, warm cache`, String(authorizer.reads), ''],
        [
          `authorizer reads per key per TTL (${authorizer.keys} keys, TTL ${authorizer.ttlSeconds} s)`,
          authorizer.readsPerKeyPerTtl.toFixed(2),
          formatGoal(authorizer.goal, ''),
        ],
        [
          `authorizer reads, cold cache, ${authorizer.coldBurst.concurrent} concurrent first requests`,
          String(authorizer.coldBurst.reads),
          '',
        ],
        [
          `authorizer calls, one key, notes to ${authorizer.distinctPaths.notes} distinct conversations in one TTL`,
          String(authorizer.distinctPaths.authorizerCalls),
          formatGoal(authorizer.distinctPaths.goal, ''),
        ],
      ],
    ),
  ].join('\n');
}

function authorizerScaleSection(report: AuthorizerScaleFigures): string {
  return [
    `Authorizer at scale: ${report.keys} distinct keys, ${report.requests} requests in shuffled order, ${report.concurrency} at once, through the local gateway (cache TTL ${report.ttlSeconds} s, its default; requests took ${report.seconds.toFixed(1)} s)`,
    formatTable(
      ['figure', '>value', 'goal'],
      [
        ['keys-table reads', String(report.storeReads), ''],
        ['reads per 1000 requests', report.storeReadsPer1000.toFixed(1), formatGoal(report.goal, '')],
      ],
    ),
  ].join('\n');
}

function bodyCheckSection(report: BodyCheckFigures): string {
  return [
    'Body check: hostile JSON bodies of about 1 MiB, parsed first; the check alone (median time; peak RSS and heap it added)',
    formatTable(
      ['body', '>MiB', '>ms', '>peak RSS +MB', '>heap +MB', 'kept'],
      report.cases.map((entry) => [
        entry.name,
        entry.bodyMib.toFixed(2),
        entry.ms.toFixed(1),
        entry.peakRssGrowthMb.toFixed(1),
        entry.heapGrowthMb.toFixed(1),
        entry.accepted ? 'yes' : 'NO',
      ]),
    ),
    `worst: ${report.worstMs.toFixed(1)} ms (${formatGoal(report.goal.ms, ' ms')}), ${report.worstMb.toFixed(1)} MB (${formatGoal(report.goal.mb, ' MB')})`,
  ].join('\n');
}

function importSection(report: ImportFigures): string {
  return [
    `Import: the real \`cxm import\` (a child process), files of generated assistant and VOC rows, checked in a first pass and written in a second`,
    formatTable(
      ['figure', '>value', 'goal'],
      [
        [
          `rows/s, ${report.rows} rows into DynamoDB Local (whole command)`,
          `${report.rowsPerSecond} (${report.seconds.toFixed(1)} s)`,
          '',
        ],
        [
          `peak RSS, ${report.rssRows} rows (${report.rssFileMb} MB file; writes acknowledged at once, ${report.rssSeconds.toFixed(1)} s)`,
          `${report.peakRssMb} MB`,
          formatGoal(report.goal, ' MB'),
        ],
      ],
    ),
  ].join('\n');
}

function webhooksSection(report: WebhooksFigures): string {
  return [
    `Webhooks: ${report.notes} notes through the local gateway (${report.concurrency} at a time: ${(report.notes / report.addSeconds).toFixed(0)} a second for ${report.addSeconds} s), delivered from DynamoDB Local's stream through the fan-out, the queue and the delivery function to a receiver verifying each attempt with standardwebhooks and answering ${Math.round(report.failureRate * 100)} % of them 500 at random (schedule ${report.scheduleMs.join(', ')} ms; all acknowledged ${report.totalSeconds} s after the first note)`,
    formatTable(
      ['figure', '>value', 'goal'],
      [
        [
          'distinct webhook-ids acknowledged / notes',
          `${report.acknowledgedIds} / ${report.notes}`,
          formatGoal(report.goals.noneLost, ' lost'),
        ],
        [
          'attempts wrong (signature, body, id of no note, two ids for a note)',
          String(report.wrong),
          formatGoal(report.goals.allRight, ''),
        ],
        ['attempts / of them answered 500 on purpose', `${report.attempts} / ${report.failedOnPurpose}`, ''],
        ['attempts after an acknowledgement (at least once)', String(report.afterAcknowledged), ''],
        ['commit to first receipt, p50 / p99', `${report.firstReceipt.p50Ms} / ${report.firstReceipt.p99Ms} ms`, ''],
        [
          'commit to first acknowledgement, p50 / p99',
          `${report.acknowledged.p50Ms} / ${report.acknowledged.p99Ms} ms`,
          '',
        ],
      ],
    ),
    ...(report.fairness ? [fairnessTable(report.fairness)] : []),
  ].join('\n');
}

function fairnessTable({ noisy, calm, goals }: WebhookFairnessFigures): string {
  return [
    `Two tenants: ${noisy.notes} notes of a noisy tenant to ${noisy.endpoints} endpoints whose receiver holds each request ${noisy.holdMs} ms, beside ${calm.notes} notes of a calm tenant (5 a second) to one that answers at once`,
    formatTable(
      ['tenant', '>notes', '>received', '>first receipt p50 / p99', 'goal'],
      [
        ['noisy', String(noisy.notes), '', `${noisy.firstReceipt.p50Ms} / ${noisy.firstReceipt.p99Ms} ms`, ''],
        [
          'calm',
          String(calm.notes),
          String(calm.received),
          `${calm.firstReceipt.p50Ms} / ${calm.firstReceipt.p99Ms} ms`,
          formatGoal(goals.calmP99, ' ms'),
        ],
      ],
    ),
  ].join('\n');
}

/** A write's name, and which of its sides hold a transaction's units computed from DynamoDB's rules. */
function writeLabel(row: WriteRow): string {
  const computed = [row.with.computedUnits && 'with', row.before?.computedUnits && 'before'].filter(Boolean);
  return computed.length > 0 ? `${row.write} (tx WRU computed: ${computed.join(', ')})` : row.write;
}

function documentWritesSection({ rows, list, ...report }: DocumentWritesFigures): string {
  const side = (figures: WriteSide | null) =>
    figures
      ? [
          figures.p50Ms.toFixed(1),
          figures.p99Ms.toFixed(1),
          figures.writeUnits.toFixed(1),
          figures.readUnits.toFixed(1),
        ]
      : ['-', '-', '-', '-'];
  const local = rows
    .map(
      (row) =>
        `${row.write} ${[row.with, row.before].map((figures) => figures?.localWriteUnits.toFixed(1) ?? '-').join(' / ')}`,
    )
    .join(', ');
  const page = (name: string, figures: DocumentWritesFigures['list']['firstPage']) => [
    name,
    figures.p50Ms.toFixed(1),
    figures.p99Ms.toFixed(1),
    String(figures.versions),
    figures.readUnits.toFixed(1),
  ];
  return [
    `Document writes: a ${report.documentBytes}-byte document, ${report.writes} sequential writes of each, with history (the store as shipped, ${report.keep} versions kept and the history full: every write prunes one) against before (the previous release's commands, d89565d^), paired; capacity units per write (WRU write, RRU read) from DynamoDB Local's ConsumedCapacity on ${report.counted} more writes of each`,
    formatTable(
      [
        'write',
        '>with p50 ms',
        '>p99 ms',
        '>WRU',
        '>RRU',
        '>before p50 ms',
        '>p99 ms',
        '>WRU',
        '>RRU',
        '>p50 with/before',
        '>WRU with/before',
      ],
      rows.map((row) => [
        writeLabel(row),
        ...side(row.with),
        ...side(row.before),
        row.ratio ? x(row.ratio.p50) : '-',
        row.ratio ? x(row.ratio.writeUnits) : '-',
      ]),
    ),
    `tx WRU computed: a TransactWriteItems' units from DynamoDB's documented rules (2 WRU per KB of each item, sized as the larger of its images before and after, and 1 per KB of each index entry it writes), since DynamoDB Local counts once the items of one table that cost the same; its own WRU, with / before: ${local}`,
    `Versions list: one document of ${list.versions} versions (written through the store in ${list.writeSeconds} s), the store's listVersions (as the pagination section measures its list, through the adapter), limit ${list.limit}, p50 / p99 of ${list.samples} requests each, alternating; RRU per page from DynamoDB Local's ConsumedCapacity`,
    formatTable(
      ['page', '>p50 ms', '>p99 ms', '>versions', '>RRU'],
      [page('first page', list.firstPage), page(`before=${list.deepPage.before}`, list.deepPage)],
    ),
  ].join('\n');
}

function opensearchSection(
  report: OpenSearchFigures,
  dynamo: BenchReport['pagination'],
  totals: BenchReport['reportingTotals'],
): string {
  const ms = ({ p50Ms, p99Ms }: { p50Ms: number; p99Ms: number }) => [p50Ms.toFixed(1), p99Ms.toFixed(1)];
  const rows = report.scenarios.map((entry) => [
    'OpenSearch',
    String(entry.tenantRows),
    String(entry.indexRows),
    String(entry.tenants),
    String(entry.total),
    ...ms(entry.firstPage),
    String(entry.deepPage),
    ...ms(entry.deepPageLatency),
  ]);
  // The DynamoDB adapter's figures of the pagination section, its medians of fewer requests.
  if (dynamo)
    rows.unshift([
      'DynamoDB',
      String(dynamo.windowRows),
      String(dynamo.windowRows),
      '1',
      totals ? String(totals.largeRows) : '-',
      totals ? totals.largeMs.toFixed(1) : '-',
      '-',
      String(dynamo.deepPage),
      dynamo.deepPageMs.toFixed(1),
      '-',
    ]);
  const { indexer } = report;
  return [
    `Reporting on OpenSearch ${report.version} (the local engine, heap ${report.heap}), through the lists' adapter: page 1 with its total and the page at 90% depth, limit ${report.limit}, p50 / p99 of ${report.samples} requests (DynamoDB: medians of the pagination section); rows bulk-loaded as the indexer writes them, ${report.bulkRowsPerSecond} rows/s`,
    formatTable(
      [
        'backend',
        '>tenant rows',
        '>rows in all',
        '>tenants',
        '>total',
        '>page 1 p50 ms',
        '>p99 ms',
        '>deep page',
        '>p50 ms',
        '>p99 ms',
      ],
      rows,
    ),
    `engine heap ${report.heapUsedMb} MB used of ${report.heapMaxMb} MB; ${report.diskBytesPerRow} bytes of disk a row (primaries)`,
    `indexer: ${indexer.rows} rows written to a table at ${indexer.writeRowsPerSecond} rows/s, searchable through its stream at ${indexer.searchableRowsPerSecond} rows/s from the first write, the last ${indexer.lagMs} ms after the last write`,
  ].join('\n');
}

/** Every goal of the report with its name, for the summary line. */
export function goals(report: BenchReport): Array<{ name: string; goal: Goal }> {
  const found: Array<{ name: string; goal: Goal }> = [];
  for (const entry of report.coldStart?.functions ?? []) {
    if (entry.initGoal) found.push({ name: `init ${entry.function}`, goal: entry.initGoal });
    if (entry.coldRequestGoal) found.push({ name: `cold request ${entry.function}`, goal: entry.coldRequestGoal });
  }
  if (report.bodyCheck) {
    found.push({ name: 'body check time', goal: report.bodyCheck.goal.ms });
    found.push({ name: 'body check memory', goal: report.bodyCheck.goal.mb });
  }
  if (report.reportingTotals) found.push({ name: 'reporting totals', goal: report.reportingTotals.goal });
  for (const entry of report.warmOverhead?.routes ?? [])
    found.push({ name: `warm overhead ${entry.route}`, goal: entry.goal });
  for (const entry of report.throughput?.routes ?? [])
    found.push({ name: `throughput ${entry.route}`, goal: entry.goal });
  if (report.pagination) {
    found.push({ name: 'pagination depth', goal: report.pagination.goal });
    found.push({ name: 'authorizer reads', goal: report.pagination.authorizer.goal });
    found.push({
      name: 'authorizer calls per key across paths',
      goal: report.pagination.authorizer.distinctPaths.goal,
    });
  }
  if (report.authorizerScale) found.push({ name: 'authorizer scale', goal: report.authorizerScale.goal });
  if (report.import) found.push({ name: 'import peak memory', goal: report.import.goal });
  if (report.webhooks) {
    found.push({ name: 'webhooks none lost', goal: report.webhooks.goals.noneLost });
    found.push({ name: 'webhooks all verified', goal: report.webhooks.goals.allRight });
    if (report.webhooks.fairness)
      found.push({ name: 'webhooks calm tenant p99 beside a noisy one', goal: report.webhooks.fairness.goals.calmP99 });
  }
  return found;
}

export function formatReport(report: BenchReport): string {
  const sections = [
    nodeHeader(report),
    report.bundles && bundlesSection(report.bundles),
    report.coldStart && coldStartSection(report.coldStart, report.node),
    report.coldStart && coldProfileSection(report.coldStart),
    report.bodyCheck && bodyCheckSection(report.bodyCheck),
    report.warmOverhead && warmSection(report.warmOverhead),
    report.warmOverhead && warmProfileSection(report.warmOverhead),
    report.throughput && throughputSection(report.throughput),
    report.pagination && paginationSection(report.pagination, report.reportingTotals),
    report.authorizerScale && authorizerScaleSection(report.authorizerScale),
    report.import && importSection(report.import),
    report.webhooks && webhooksSection(report.webhooks),
    report.documentWrites && documentWritesSection(report.documentWrites),
    report.opensearch && opensearchSection(report.opensearch, report.pagination, report.reportingTotals),
  ].filter((section): section is string => Boolean(section));
  const all = goals(report);
  const missed = all.filter(({ goal }) => !goal.met).map(({ name }) => name);
  sections.push(
    `Goals: ${all.length - missed.length} of ${all.length} met${missed.length > 0 ? `; not met: ${missed.join(', ')}` : ''}.`,
  );
  const peers = report.coldStart && peersSummary(report.coldStart);
  if (peers) sections.push(peers);
  return `${sections.join('\n\n')}\n`;
}

/** The whole report on one line, so `tail -n 1` gives a parseable object. */
export function formatJson(report: BenchReport): string {
  return `${JSON.stringify(report)}\n`;
}
