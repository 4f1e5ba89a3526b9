/**
 * `import` (big imports): the real `cxm import` as an operator runs it, a child process
 * on the bench's Node, over files of realistic reporting rows generated into a temporary directory
 * by a streaming writer.
 *
 * - Rate: `rows` rows into the bench's DynamoDB Local, rows per second of the whole command (the
 *   checking pass, the writing pass and the process's start). DynamoDB Local's transactions set
 *   the pace here (a few hundred rows a second for the reporting store's row-and-count
 *   transactions), so the full size takes minutes.
 * - Memory: the peak resident set of the CLI importing `rssRows` rows (goal: at most 300 MB, so a
 *   file of any size fits a small machine). Its writes go to an endpoint that acknowledges each at
 *   once (start-acknowledging-dynamo.ts): the same requests built and sent, at the CLI's own pace,
 *   which is its busiest; into DynamoDB Local the same run would take over an hour. The peak is the
 *   kernel's (report-max-rss.mjs), not a sample.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LocalDynamoConnection } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { writeLocalState } from '#infra/local/local-state';
import { PROJECT_ROOT } from '#infra/project-root';
import { allTableSpecs, type TableId } from '#shared/store/table-specs';
import { generateImportFile } from '#test/support/generate-import-file';
import type { Progress } from './bench-progress.ts';
import { atMost, type Goal, round } from './bench-stats.ts';
import { startAcknowledgingDynamo } from './start-acknowledging-dynamo.ts';

const PEAK_RSS_GOAL_MB = 300;
const TENANT = 'bench-import';
const MAX_RSS_REPORTER = join(PROJECT_ROOT, 'test/bench/report-max-rss.mjs');
const CLI_BIN = 'infra/cli/cxm.mjs';
/** The Node flags the bin's own line gives it (`#!/usr/bin/env -S node <flags>`): the import runs as `npx cxm` runs it. */
const CLI_NODE_FLAGS = (
  /^#!\/usr\/bin\/env -S node (.*)$/m.exec(readFileSync(join(PROJECT_ROOT, CLI_BIN), 'utf8'))?.[1] ?? ''
)
  .split(' ')
  .filter((flag) => flag !== '');

export interface ImportSizes {
  /** Rows imported into DynamoDB Local for the rate. */
  rows: number;
  /** Rows of the file whose import's peak memory is measured. */
  rssRows: number;
}

export interface ImportFigures {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  rssRows: number;
  rssFileMb: number;
  rssSeconds: number;
  peakRssMb: number;
  goal: Goal;
}

interface CliRun {
  seconds: number;
  peakRssMb: number;
}

/** Runs `cxm import` with `home` as CXM_HOME; its stderr progress lines go to the bench's. */
async function runImport(
  home: string,
  file: string,
  progress: Progress,
  track: (child: ChildProcess) => void,
): Promise<CliRun> {
  const rssFile = join(home, 'max-rss');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', MAX_RSS_REPORTER, ...CLI_NODE_FLAGS, CLI_BIN, 'import', '--tenant', TENANT, file],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CXM_HOME: home, CXM_BENCH_MAX_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  track(child);
  let stdout = '';
  const stderr: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr.push(line);
    if (line.trim() !== '') progress(`import: ${line.trim()}`);
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0 || !stdout.startsWith('Imported '))
    throw new Error(`cxm import exited with ${code}:\n${stdout}${stderr.join('\n')}`);
  return { seconds, peakRssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 };
}

/** A CXM_HOME whose local.json points the CLI at `endpoint`. */
function homeFor(
  dir: string,
  name: string,
  { endpoint, credentials }: LocalDynamoConnection,
  tables: Record<TableId, string>,
): string {
  const home = join(dir, name);
  mkdirSync(home);
  writeLocalState(
    {
      apiUrl: 'http://127.0.0.1:9',
      dynamodbEndpoint: endpoint,
      dynamodbCredentials: credentials,
      region: LOCAL_REGION,
      stage: 'bench',
      tables,
      demo: null,
      pid: process.pid,
    },
    home,
  );
  return home;
}

export async function measureImport(
  dynamo: LocalDynamoConnection & { tables: Record<TableId, string> },
  sizes: ImportSizes,
  progress: Progress,
  track: (child: ChildProcess) => void,
): Promise<ImportFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'cxm-bench-import-'));
  try {
    const half = (rows: number) => ({ assistant: Math.ceil(rows / 2), voc: Math.floor(rows / 2) });

    progress(`import: writing a file of ${sizes.rows} rows`);
    const rateFile = join(dir, 'rate.json');
    await generateImportFile(rateFile, half(sizes.rows));
    progress(`import: cxm import of ${sizes.rows} rows into DynamoDB Local`);
    const rate = await runImport(homeFor(dir, 'rate', dynamo, dynamo.tables), rateFile, progress, track);
    rmSync(rateFile);

    progress(`import: writing a file of ${sizes.rssRows} rows`);
    const rssFile = join(dir, 'rss.json');
    const { bytes } = await generateImportFile(rssFile, half(sizes.rssRows));
    const sink = await startAcknowledgingDynamo();
    let memory: CliRun;
    try {
      progress(
        `import: cxm import of ${sizes.rssRows} rows (${(bytes / 1_048_576).toFixed(0)} MB), writes acknowledged at once; peak memory`,
      );
      const tables = Object.fromEntries(allTableSpecs.map((spec) => [spec.id, `bench-import-${spec.id}`])) as Record<
        TableId,
        string
      >;
      memory = await runImport(
        homeFor(dir, 'rss', { endpoint: sink.url, credentials: dynamo.credentials }, tables),
        rssFile,
        progress,
        track,
      );
    } finally {
      await sink.close();
    }
    return {
      rows: sizes.rows,
      seconds: round(rate.seconds, 1),
      rowsPerSecond: Math.round(sizes.rows / rate.seconds),
      rssRows: sizes.rssRows,
      rssFileMb: round(bytes / 1_048_576, 0),
      rssSeconds: round(memory.seconds, 1),
      peakRssMb: round(memory.peakRssMb, 0),
      goal: atMost(round(memory.peakRssMb, 0), PEAK_RSS_GOAL_MB),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
