/**
 * The bench's arithmetic and output (test/bench), not the bench itself: speed is never asserted
 * in tests (test/README.md).
 */
import { describe, expect, it } from 'vitest';
import { atLeast, atMost, median, pairedDifference, pairedRatio, round } from '#test/bench/bench-stats';
import { withPeerStandings } from '#test/bench/compare-peers';
import type { ColdProfile } from '#test/bench/cpu-profile-summary';
import { type ColdStartEntry, coldRequestGoalOf } from '#test/bench/measure-cold-start';
import { medianProcess, type WarmOverheadEntry } from '#test/bench/measure-warm-overhead';
import type { WebhooksFigures } from '#test/bench/measure-webhooks';
import { performancePage } from '#test/bench/performance-page';
import { type BenchReport, formatJson, formatReport, formatTable, goals, peersSummary } from '#test/bench/print-table';
import { whyUnmet } from '#test/bench/unmet-goals';

describe('bench statistics', () => {
  it('takes the median of odd and even counts, whatever the order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });

  it('pairs each run with the baseline run beside it, so one slow pair does not move the figure', () => {
    // The machine slowed down in the third pair: both sides took three times as long.
    expect(pairedRatio([110, 120, 330], [100, 100, 300])).toBe(1.1);
    expect(pairedDifference([12, 15, 40], [10, 10, 30])).toBe(5);
    expect(() => pairedRatio([1], [1, 2])).toThrow(RangeError);
  });

  it("takes a warm route's figures from its median process, and keeps every process's ratio", () => {
    const entry = (route: string, ratio: number): WarmOverheadEntry => ({
      route,
      chainUs: ratio * 100,
      bareUs: 100,
      overheadUs: (ratio - 1) * 100,
      storeCallUs: { chain: 60 + ratio, bare: 60, extra: ratio },
      ratio,
      ratios: [ratio],
      backToBack: ratio + 0.1,
      goal: atMost(ratio, 1.1),
    });
    const processes = [entry('note', 1.08), entry('note', 1.2), entry('note', 1.15)];
    expect(medianProcess(processes)).toEqual({ ...entry('note', 1.15), ratios: [1.08, 1.2, 1.15] });
    // An even count takes the lower middle.
    expect(medianProcess([entry('get', 1.3), entry('get', 1.1)])).toEqual({ ...entry('get', 1.1), ratios: [1.3, 1.1] });
    expect(() => medianProcess([])).toThrow(/no process/);
  });

  it('states goals in both directions', () => {
    expect(atMost(1.2, 1.25)).toEqual({ kind: 'max', limit: 1.25, value: 1.2, met: true });
    expect(atLeast(0.6, 0.7)).toEqual({ kind: 'min', limit: 0.7, value: 0.6, met: false });
    expect(round(1.23456)).toBe(1.23);
  });
});

const row = (name: string, kind: ColdStartEntry['kind'], ratio: number, coldRequestRatio = ratio): ColdStartEntry => ({
  function: name,
  kind,
  initMs: 90 * ratio,
  initCpuMs: 80 * ratio,
  ratio,
  wallRatio: ratio,
  // The stream functions serve no request.
  ...(kind !== 'stream' && {
    coldRequestMs: 130 * coldRequestRatio,
    coldRequestCpuMs: 100 * coldRequestRatio,
    coldRequestRatio,
  }),
});

const report: BenchReport = {
  node: { version: 'v24.21.0', pinned: true, benchVersion: 'v20.20.2' },
  coldStart: {
    runs: 3,
    baselineMs: 90,
    baselineCpuMs: 80,
    baselineColdRequestMs: 130,
    baselineColdRequestCpuMs: 100,
    functions: withPeerStandings([
      {
        ...row('getCurrentDocument', 'api', 1.04, 0.88),
        initGoal: atMost(1.04, 1.05),
        coldRequestGoal: atMost(0.88, 0.9),
        compileCache: 'accepted',
        withoutCache: { initCpuMs: 100, ratio: 1.25, coldRequestCpuMs: 120, coldRequestRatio: 1.2 },
      },
      {
        ...row('listNotes', 'api', 1.03, 1.1),
        initGoal: atMost(1.03, 1.05),
        coldRequestGoal: atMost(1.1, 1.0),
        compileCache: 'rejected',
        withoutCache: { initCpuMs: 84, ratio: 1.05, coldRequestCpuMs: 112, coldRequestRatio: 1.12 },
      },
      {
        ...row('reportingIndexer', 'stream', 1.5),
        compileCache: 'accepted',
        withoutCache: { initCpuMs: 140, ratio: 1.75 },
      },
      {
        ...row('middy + Powertools Logger', 'peer', 1.07),
        packages: { '@middy/core': '6.4.5', '@aws-lambda-powertools/logger': '2.35.0' },
      },
      // A tie with getCurrentDocument, as printed: not ahead.
      { ...row('Hono (hono/aws-lambda)', 'peer', 1.04, 0.88), packages: { hono: '4.13.19' } },
    ]),
  },
  bundles: null,
  bodyCheck: null,
  warmOverhead: {
    processes: 3,
    rounds: 2,
    batch: 10,
    routes: [
      {
        route: 'getCurrentDocument',
        chainUs: 180,
        bareUs: 100,
        overheadUs: 80,
        storeCallUs: { chain: 75.5, bare: 50, extra: 25.5 },
        ratio: 1.8,
        ratios: [1.9, 1.8, 1.7],
        backToBack: 1.95,
        goal: atMost(1.8, 1.1),
      },
    ],
  },
  throughput: null,
  pagination: null,
  reportingTotals: null,
  authorizerScale: null,
  import: null,
  webhooks: null,
  documentWrites: null,
  opensearch: null,
};

describe('bench output', () => {
  it('aligns columns, right-aligning those marked >', () => {
    expect(
      formatTable(
        ['name', '>n'],
        [
          ['a', '1'],
          ['bbb', '22'],
        ],
      ).split('\n'),
    ).toEqual(['name   n', '----  --', 'a      1', 'bbb   22']);
  });

  it('prints the report as one JSON object on the last line', () => {
    const lines = formatJson(report).trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual(report);
    expect(Object.keys(JSON.parse(lines.at(-1)!))).toEqual([
      'node',
      'coldStart',
      'bundles',
      'bodyCheck',
      'warmOverhead',
      'throughput',
      'pagination',
      'reportingTotals',
      'authorizerScale',
      'import',
      'webhooks',
      'documentWrites',
      'opensearch',
    ]);
  });

  it('prints the OpenSearch rows beside the DynamoDB row of the pagination section', () => {
    const latency = (p50Ms: number, p99Ms: number) => ({ p50Ms, p99Ms });
    const printed = formatReport({
      ...report,
      opensearch: {
        version: '2.19.6',
        heap: '2g',
        limit: 1000,
        samples: 40,
        bulkRowsPerSecond: 6500,
        heapUsedMb: 700,
        heapMaxMb: 2048,
        diskBytesPerRow: 640,
        scenarios: [
          {
            tenantRows: 10_000,
            indexRows: 10_000,
            tenants: 1,
            total: 10_000,
            firstPage: latency(90, 120),
            deepPage: 9,
            deepPageLatency: latency(80, 100),
          },
          {
            tenantRows: 100,
            indexRows: 1_100_000,
            tenants: 1001,
            total: 100,
            firstPage: latency(10, 15),
            deepPage: 2,
            deepPageLatency: latency(9, 12),
          },
        ],
        indexer: { rows: 20_000, writeRowsPerSecond: 2000, searchableRowsPerSecond: 1900, lagMs: 700 },
      },
    });
    const section = printed.slice(printed.indexOf('Reporting on OpenSearch 2.19.6'));
    expect(section).toMatch(/^OpenSearch +10000 +10000 +1 +10000 +90\.0 +120\.0 +9 +80\.0 +100\.0$/m);
    expect(section).toMatch(/^OpenSearch +100 +1100000 +1001 +100 +10\.0 +15\.0 +2 +9\.0 +12\.0$/m);
    expect(section).toContain('engine heap 700 MB used of 2048 MB; 640 bytes of disk a row');
    expect(section).toContain(
      'indexer: 20000 rows written to a table at 2000 rows/s, searchable through its stream at 1900 rows/s',
    );
    // No pagination section in this report: no DynamoDB row to set beside.
    expect(section).not.toMatch(/^DynamoDB/m);
  });

  it('names every goal not met in the table summary', () => {
    expect(goals(report).map(({ name, goal }) => [name, goal.met])).toEqual([
      ['init getCurrentDocument', true],
      ['cold request getCurrentDocument', true],
      ['init listNotes', true],
      ['cold request listNotes', false],
      ['warm overhead getCurrentDocument', false],
    ]);
    expect(formatReport(report)).toContain(
      'Goals: 3 of 5 met; not met: cold request listNotes, warm overhead getCurrentDocument.',
    );
  });

  it("says which Node measured, and which sections stayed on the bench's own", () => {
    const header = formatReport(report).split('\n')[0];
    expect(header).toBe("Node: cold start and warm overhead measured on Node v24.21.0 (Lambda's, pinned).");
    const standIn = formatReport({
      ...report,
      node: { version: 'v20.20.2', pinned: false, benchVersion: 'v20.20.2' },
      throughput: null,
      warmOverhead: null,
    });
    expect(standIn.split('\n')[0]).toBe(
      "Node: cold start measured on Node v20.20.2 (NOT Lambda's: the pinned Node is missing).",
    );
  });
});

describe('the performance page', () => {
  const page = performancePage(report, { startedAt: new Date('2026-11-29T01:00:00Z'), seconds: 1230 });

  it('says when, where and on which Node the run was made', () => {
    expect(page).toContain('- Run: 2026-11-29T01:00:00.000Z, 21 minutes\n');
    expect(page).toMatch(/^- Machine: .+, \d+ cores, \d+ GiB, \w+ \w+$/m);
    expect(page).toContain("- Node: functions on v24.21.0 (Lambda's, pinned), the bench on v20.20.2\n");
  });

  it('lists every goal with its figure, and every row of the report as printed', () => {
    expect(page).toMatch(/^\| cold request listNotes \| 1\.1 \| at most [\d.]+ \| \*\*not met\*\* \|$/m);
    expect(page).toContain('| init getCurrentDocument | 1.04 | at most 1.05 | met |');
    expect(page).toContain(formatReport(report).trimEnd());
  });

  it('says why each missed goal is missed, and which have no reason written yet', () => {
    expect(page).toContain(
      `- **cold request listNotes**: ${whyUnmet('cold request listNotes')}\n- **warm overhead getCurrentDocument**: `,
    );
    expect(whyUnmet('cold request listNotes')).toBeDefined();
    expect(whyUnmet('a goal of tomorrow')).toBeUndefined();
    const missedUnknown = performancePage(
      { ...report, coldStart: null, warmOverhead: { ...report.warmOverhead!, routes: [] }, throughput: null },
      { startedAt: new Date(), seconds: 60 },
    );
    expect(missedUnknown).toContain('Every goal of the run was met.');
  });
});

describe('bench authorizer at scale', () => {
  const scale = {
    ttlSeconds: 60,
    keys: 1000,
    requests: 5000,
    concurrency: 20,
    seconds: 6.2,
    storeReads: 1000,
    storeReadsPer1000: 200,
    goal: atMost(200, 200),
  };
  const withScale: BenchReport = { ...report, coldStart: null, warmOverhead: null, authorizerScale: scale };

  it('is a top-level JSON field with the keys, the reads and the reads per 1 000 requests', () => {
    expect((JSON.parse(formatJson(withScale)) as BenchReport).authorizerScale).toEqual(scale);
  });

  it("prints its own section, counts its goal, and says it ran on the bench's Node", () => {
    const printed = formatReport(withScale);
    expect(printed.split('\n')[0]).toBe(
      "Node: authorizer scale on the bench's Node v20.20.2 (in process / the local gateway as npm start runs it).",
    );
    const section = printed.split('\n\n').find((part) => part.startsWith('Authorizer at scale:'))!;
    expect(section).toContain('1000 distinct keys, 5000 requests in shuffled order, 20 at once');
    expect(section).toMatch(/reads per 1000 requests\s+200\.0\s+<= 200 met/);
    expect(goals(withScale)).toEqual([{ name: 'authorizer scale', goal: atMost(200, 200) }]);
    expect(
      goals({
        ...withScale,
        authorizerScale: { ...scale, storeReads: 5000, storeReadsPer1000: 1000, goal: atMost(1000, 200) },
      })[0]!.goal.met,
    ).toBe(false);
  });
});

describe('bench import', () => {
  const figures = {
    rows: 100_000,
    seconds: 290.2,
    rowsPerSecond: 345,
    rssRows: 500_000,
    rssFileMb: 397,
    rssSeconds: 113.6,
    peakRssMb: 242,
    goal: atMost(242, 300),
  };
  const withImport: BenchReport = { ...report, coldStart: null, warmOverhead: null, import: figures };

  it('is a top-level JSON field with rows, rows per second and the peak memory', () => {
    expect((JSON.parse(formatJson(withImport)) as BenchReport).import).toMatchObject({
      rows: 100_000,
      rowsPerSecond: 345,
      peakRssMb: 242,
    });
  });

  it('prints its own section and counts its memory goal', () => {
    const section = formatReport(withImport)
      .split('\n\n')
      .find((part) => part.startsWith('Import:'))!;
    expect(section).toMatch(/rows\/s, 100000 rows into DynamoDB Local \(whole command\)\s+345 \(290\.2 s\)/);
    expect(section).toMatch(/peak RSS, 500000 rows \(397 MB file; .*\)\s+242 MB\s+<= 300 MB met/);
    expect(goals(withImport)).toEqual([{ name: 'import peak memory', goal: atMost(242, 300) }]);
  });
});

describe('bench peers', () => {
  it("holds each request-serving function's cold request to its kind's goal, and its import to its own", () => {
    expect(goals(report).filter(({ name }) => name.startsWith('cold request') || name.startsWith('init'))).toEqual([
      { name: 'init getCurrentDocument', goal: atMost(1.04, 1.05) },
      { name: 'cold request getCurrentDocument', goal: atMost(0.88, 0.9) },
      { name: 'init listNotes', goal: atMost(1.03, 1.05) },
      { name: 'cold request listNotes', goal: atMost(1.1, 1.0) },
    ]);
    expect(coldRequestGoalOf({ kind: 'api' })).toBe(0.9);
    expect(coldRequestGoalOf({ kind: 'authorizer' })).toBe(0.9);
    expect(coldRequestGoalOf({ kind: 'api', list: true })).toBe(1.0);
    expect(coldRequestGoalOf({ kind: 'reporting-opensearch', list: true })).toBe(1.0);
    expect(coldRequestGoalOf({ kind: 'mcp' })).toBe(1.3);
    for (const kind of ['stream', 'peer', 'probe', 'baseline'] as const)
      expect(coldRequestGoalOf({ kind })).toBeUndefined();
  });

  it('prints beside each of ours its cold request without the cache and what the cache did', () => {
    const section = formatReport(report)
      .split('\n\n')
      .find((part) => part.startsWith('Cold start'))!;
    expect(section.split('\n').find((line) => line.startsWith('listNotes'))).toMatch(
      /1\.03x\s+<= 1\.05x met\s+110\.0\s+143\.0\s+1\.10x\s+<= 1x NOT MET\s+1\.12x\s+rejected$/,
    );
    // A stream function serves no request: its import's ratio without the cache.
    expect(section.split('\n').find((line) => line.startsWith('reportingIndexer'))).toMatch(/-\s+1\.75x\s+accepted$/);
  });

  it("prints beside a warm route's overhead how much of it is the store call made from the chain, and the ratio back to back", () => {
    const section = formatReport(report)
      .split('\n\n')
      .find((part) => part.startsWith('Warm overhead'))!;
    expect(section.split('\n').find((line) => line.startsWith('getCurrentDocument'))).toMatch(
      /180\.0\s+100\.0\s+80\.0\s+25\.5\s+1\.80x.*1\.90x 1\.80x 1\.70x\s+1\.95x$/,
    );
  });

  it('marks each of our request-serving functions ahead of a peer only when its cold-request ratio is lower', () => {
    const functions = report.coldStart!.functions;
    expect(functions.find((entry) => entry.function === 'getCurrentDocument')!.aheadOfPeers).toEqual({
      'middy + Powertools Logger': true,
      'Hono (hono/aws-lambda)': false,
    });
    expect(functions.find((entry) => entry.function === 'listNotes')!.aheadOfPeers).toEqual({
      'middy + Powertools Logger': false,
      'Hono (hono/aws-lambda)': false,
    });
    // The indexer serves no request, and a peer is not compared with peers.
    expect(functions.filter((entry) => entry.aheadOfPeers === undefined).map((entry) => entry.function)).toEqual([
      'reportingIndexer',
      'middy + Powertools Logger',
      'Hono (hono/aws-lambda)',
    ]);
    expect(withPeerStandings([row('getCurrentDocument', 'api', 1)])[0]!.aheadOfPeers).toBeUndefined();
  });

  it('prints the peers after our functions, labelled, with their packages and no goal', () => {
    const section = formatReport(report)
      .split('\n\n')
      .find((part) => part.startsWith('Cold start'))!;
    const table = section.split('\n').slice(3);
    const names = table.map((line) => line.split(/\s{2,}/)[0]);
    expect(names).toEqual([
      'getCurrentDocument',
      'listNotes',
      'reportingIndexer',
      'peer: middy + Powertools Logger',
      'peer: Hono (hono/aws-lambda)',
    ]);
    const hono = table.find((line) => line.startsWith('peer: Hono'))!;
    expect(hono).toMatch(/0\.88x\s+-\s+-\s+-\s+hono 4\.13\.19$/);
    expect(goals(report).some(({ name }) => name.includes('peer') || name.includes('Hono'))).toBe(false);
  });

  it('keeps the peers in the JSON as coldStart rows of kind peer', () => {
    const parsed = JSON.parse(formatJson(report)) as BenchReport;
    expect(
      parsed
        .coldStart!.functions.filter((entry) => entry.kind === 'peer')
        .map(({ function: name, ratio, packages }) => ({ name, ratio, packages })),
    ).toEqual([
      {
        name: 'middy + Powertools Logger',
        ratio: 1.07,
        packages: { '@middy/core': '6.4.5', '@aws-lambda-powertools/logger': '2.35.0' },
      },
      { name: 'Hono (hono/aws-lambda)', ratio: 1.04, packages: { hono: '4.13.19' } },
    ]);
  });

  it('says in the summary, per peer, which of our functions are ahead of it', () => {
    expect(peersSummary(report.coldStart!)!.split('\n')).toEqual([
      "Against the peers (cold request CPU vs the baseline's; ahead = lower ratio), our functions:",
      '  middy + Powertools Logger (1.07x): 1 of 2 ahead; not ahead: listNotes',
      '  Hono (hono/aws-lambda) (0.88x): none of 2 ahead',
    ]);
    expect(formatReport(report)).toContain('  Hono (hono/aws-lambda) (0.88x): none of 2 ahead');
    expect(
      peersSummary({
        ...report.coldStart!,
        functions: report.coldStart!.functions.filter((entry) => entry.kind !== 'peer'),
      }),
    ).toBeUndefined();
  });
});

describe('bench webhooks', () => {
  const figures: WebhooksFigures = {
    notes: 1000,
    concurrency: 10,
    failureRate: 0.2,
    scheduleMs: [0, 1000, 1000],
    addSeconds: 4.2,
    totalSeconds: 9.8,
    attempts: 1251,
    failedOnPurpose: 251,
    acknowledgedIds: 1000,
    lost: 0,
    wrong: 0,
    afterAcknowledged: 0,
    firstReceipt: { p50Ms: 420, p99Ms: 910 },
    acknowledged: { p50Ms: 460, p99Ms: 2900 },
    goals: { noneLost: atMost(0, 0), allRight: atMost(0, 0) },
  };
  const withWebhooks: BenchReport = { ...report, coldStart: null, warmOverhead: null, webhooks: figures };

  it("prints its own section with the ids, the attempts and the latencies, on the bench's Node", () => {
    const printed = formatReport(withWebhooks);
    expect(printed.split('\n')[0]).toContain('webhooks on the bench');
    const section = printed.split('\n\n').find((part) => part.startsWith('Webhooks:'))!;
    expect(section).toContain('1000 notes through the local gateway');
    expect(section).toContain('answering 20 % of them 500 at random (schedule 0, 1000, 1000 ms');
    expect(section).toMatch(/distinct webhook-ids acknowledged \/ notes\s+1000 \/ 1000\s+<= 0 lost met/);
    expect(section).toMatch(/commit to first receipt, p50 \/ p99\s+420 \/ 910 ms/);
    expect(section).toMatch(/commit to first acknowledgement, p50 \/ p99\s+460 \/ 2900 ms/);
  });

  it('counts a lost note and a wrong attempt as goals not met', () => {
    expect(goals(withWebhooks).map(({ name, goal }) => [name, goal.met])).toEqual([
      ['webhooks none lost', true],
      ['webhooks all verified', true],
    ]);
    const bad = { ...figures, lost: 1, wrong: 2, goals: { noneLost: atMost(1, 0), allRight: atMost(2, 0) } };
    expect(formatReport({ ...withWebhooks, webhooks: bad })).toContain(
      'Goals: 0 of 2 met; not met: webhooks none lost, webhooks all verified.',
    );
  });
});

describe('bench profiles', () => {
  const cold = (sampledMs: number): ColdProfile => ({
    processes: 3,
    sampledMs,
    bundle: [
      { name: '@smithy/core', ms: 12 },
      { name: 'project', ms: 3 },
    ],
    builtins: [{ name: 'node:internal/deps/undici/undici', ms: 28 }],
    compileMs: 9,
    gcMs: 4,
    nodeMs: 20,
  });
  const coldStart = report.coldStart!;
  const profiled: BenchReport = {
    ...report,
    coldStart: {
      ...coldStart,
      baselineProfile: cold(100),
      functions: coldStart.functions.map((entry) =>
        entry.function === 'listNotes' ? { ...entry, profile: cold(140) } : entry,
      ),
    },
    warmOverhead: {
      ...report.warmOverhead!,
      routes: report.warmOverhead!.routes.map((entry) => ({
        ...entry,
        profile: {
          calls: 2000,
          chainUs: 200,
          bareUs: 120,
          extra: [
            { origin: '@aws-lambda-powertools/logger', us: 9 },
            { origin: 'shared/http/response-headers.ts', us: 4 },
            { origin: 'test/bench/bare.ts', us: -2 },
          ],
        },
      })),
    },
  };
  const section = (start: string) =>
    formatReport(profiled)
      .split('\n\n')
      .find((part) => part.startsWith(start));

  it("prints where each profiled cold request's CPU goes, beside the baseline's", () => {
    const lines = section('Where the cold requests')!.split('\n');
    expect(lines[0]).toContain('averaged over 3 processes');
    const parts = [
      '15.0',
      '28.0',
      '9.0',
      '4.0',
      '20.0',
      '@smithy/core 12.0, project 3.0',
      'node:internal/deps/undici/undici 28.0',
    ];
    expect(lines.slice(3).map((line) => line.split(/\s{2,}/))).toEqual([
      ['baseline', '100.0', ...parts],
      ['listNotes', '140.0', ...parts],
    ]);
  });

  it("prints where each profiled route's warm overhead goes, what the chain adds and not what it saves", () => {
    const lines = section('Where the warm overhead')!.split('\n');
    expect(lines[0]).toContain('of 2000 requests');
    expect(lines[3]).toMatch(
      /^getCurrentDocument\s+200\.0\s+120\.0\s+@aws-lambda-powertools\/logger \+9\.0, shared\/http\/response-headers\.ts \+4\.0$/,
    );
  });

  it('prints no profile section when no row was profiled', () => {
    const printed = formatReport(report);
    expect(printed).not.toContain('Where the cold requests');
    expect(printed).not.toContain('Where the warm overhead');
  });
});
