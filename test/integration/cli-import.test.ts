/**
 * `cxm import` of files with thousands of rows, as an operator runs it: the CLI in this process
 * (test/support/cli-harness.ts), and as a child process where a signal stops it (Ctrl-C, a kill),
 * against the run's DynamoDB Local through the fault proxy (test/support/dynamo-fault-proxy.ts),
 * which records the row writes (TransactWriteItems, or BatchWriteItem) each run sends. The file is
 * streamed and every row lands as shaped; a bad element late in the file changes nothing; a store
 * outage, Ctrl-C or a kill mid-import ends with the `--resume` hint, and `--resume` completes the
 * import without sending again what was stored before the stop; a throttled write is retried by
 * the import itself when the SDK gives up.
 */

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { writeLocalState } from '#infra/local/local-state';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { type ReportRow, shapeRow } from '#shared/domain/reporting/report-rows';
import { listKey, rowKey } from '#shared/store/reporting-keys';
import { reportingItem } from '#shared/store/reporting-rows-store';
import { type TableId, tableSpecs } from '#shared/store/table-specs';
import { cxm } from '#test/support/cli-harness';
import {
  type DynamoFaultProxy,
  type InjectedFault,
  type RecordedRequests,
  startDynamoFaultProxy,
} from '#test/support/dynamo-fault-proxy';
import { generateImportFile } from '#test/support/generate-import-file';
import { type Finished, ownLines, run } from '#test/support/run-process';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

/** The operations a reporting-rows write may use. */
const ROW_WRITES = ['TransactWriteItems', 'BatchWriteItem'] as const;
const HOUR = 3_600_000;

let proxy: DynamoFaultProxy;
let tables: Record<TableId, string>;
let client: DynamoDBDocumentClient;
let home: string;

beforeAll(async () => {
  const dynamo = workerDynamo();
  tables = dynamo.tables;
  proxy = await startDynamoFaultProxy(dynamo.endpoint);
  client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: dynamo.credentials }),
  );
  home = mkdtempSync(join(tmpdir(), 'cxm-import-'));
  writeLocalState(
    {
      apiUrl: 'http://127.0.0.1:9',
      dynamodbEndpoint: proxy.url,
      dynamodbCredentials: dynamo.credentials,
      region: LOCAL_REGION,
      stage: 'test',
      tables,
      demo: null,
      pid: process.pid,
    },
    home,
  );
});
afterAll(async () => {
  client.destroy();
  await proxy.close();
});

/** The row writes of one tenant the proxy sees while `action` runs (a batch may be sent more than once). */
async function recordingRowWrites<T>(
  tenant: string,
  action: (requests: () => readonly string[]) => Promise<T>,
): Promise<{ result: T; bodies: string[] }> {
  const recordings: RecordedRequests[] = ROW_WRITES.map((operation) =>
    proxy.record({ operation, bodyContains: `"${tenant}#` }),
  );
  const bodies = () => recordings.flatMap((recording) => recording.bodies);
  try {
    return { result: await action(bodies), bodies: bodies() };
  } finally {
    for (const recording of recordings) recording.remove();
  }
}

const importArgs = (tenant: string, file: string, resume: boolean | undefined) => [
  'import',
  '--tenant',
  tenant,
  file,
  ...(resume ? ['--resume'] : []),
];

/** `cxm import` in this process. */
function cxmImport(
  tenant: string,
  file: string,
  options: { resume?: boolean; env?: Record<string, string> } = {},
): Promise<Finished> {
  return cxm(importArgs(tenant, file, options.resume), { CXM_HOME: home, ...options.env });
}

/** `cxm import` as a child process (the bin), for a test that signals it: `onSpawn` gets the child. */
function cxmImportProcess(
  tenant: string,
  file: string,
  options: { resume?: boolean; onSpawn: (child: ChildProcess) => void },
): Promise<Finished> {
  return run(
    'node',
    ['infra/cli/cxm.mjs', ...importArgs(tenant, file, options.resume)],
    { CXM_HOME: home },
    120_000,
    options.onSpawn,
  );
}

/** Calls `then` once `count()` reaches `at` (polled), e.g. to break a run part-way. */
function when(count: () => number, at: number, then: () => void): () => void {
  const timer = setInterval(() => {
    if (count() < at) return;
    clearInterval(timer);
    then();
  }, 5);
  return () => clearInterval(timer);
}

/** An import run by `start`, broken part-way: `interrupt` runs once `sent()` holds `at` requests; the watch ends with the run. */
function brokenAt(
  sent: () => readonly string[],
  at: number,
  interrupt: () => void,
  start: () => Promise<Finished>,
): Promise<Finished> {
  const stop = when(() => sent().length, at, interrupt);
  return start().finally(stop);
}

/** cxmImportProcess, signalled part-way: `interrupt` gets the child once `sent()` holds `at` requests. */
function cxmImportProcessBrokenAt(
  tenant: string,
  file: string,
  sent: () => readonly string[],
  at: number,
  interrupt: (child: ChildProcess) => void,
  options: { resume?: boolean } = {},
): Promise<Finished> {
  let spawned: ChildProcess | undefined;
  return brokenAt(
    sent,
    at,
    () => interrupt(spawned!),
    () => cxmImportProcess(tenant, file, { ...options, onSpawn: (child) => (spawned = child) }),
  );
}

async function storedRows(tenant: string, kind: ReportKind): Promise<Map<string, Record<string, unknown>>> {
  const rows = new Map<string, Record<string, unknown>>();
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tables.reporting,
        IndexName: tableSpecs.reporting.indexes[0]!.name,
        KeyConditionExpression: 'gpk = :gpk',
        ExpressionAttributeValues: { ':gpk': listKey(tenant, kind) },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) rows.set(String(item.rowId), item);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return rows;
}

/** The file's rows in file order, as written by generateImportFile (assistant first, then VOC). */
function fileRows(file: string): Array<{ kind: ReportKind; input: ReportRow }> {
  const content = JSON.parse(readFileSync(file, 'utf8')) as {
    assistantConversations: ReportRow[];
    vocConversations: ReportRow[];
  };
  return [
    ...content.assistantConversations.map((input) => ({ kind: 'assistant' as const, input })),
    ...content.vocConversations.map((input) => ({ kind: 'voc' as const, input })),
  ];
}

async function expectAllStored(tenant: string, file: string): Promise<void> {
  const rows = fileRows(file);
  const stored = { assistant: await storedRows(tenant, 'assistant'), voc: await storedRows(tenant, 'voc') };
  expect(stored.assistant.size + stored.voc.size).toBe(rows.length);
  for (const { kind, input } of rows) {
    const expected = reportingItem(tenant, kind, shapeRow(kind, tenant, input));
    expect(stored[kind].get(expected.rowId)).toEqual(expected);
  }
}

/** The rows of the first `stored` items that any of `bodies` carries: none, for a run that did not start over. */
function resentAmong(bodies: readonly string[], tenant: string, file: string, stored: number): string[] {
  return fileRows(file)
    .slice(0, stored)
    .map(({ kind, input }) => `"${rowKey(tenant, kind, String(input.ID))}"`)
    .filter((key) => bodies.some((body) => body.includes(key)));
}

const storedCount = (stderr: string) =>
  Number(/stopped after (\d+) of \d+ items were stored/.exec(stderr)?.[1] ?? Number.NaN);

describe('cxm import of a large file', () => {
  it('streams a file of 600 rows and stores every row as shaped', async () => {
    const tenant = uniqueTenant('stream');
    const file = join(home, `${tenant}.json`);
    await generateImportFile(file, { assistant: 360, voc: 240, days: 2 });
    const { result, bodies } = await recordingRowWrites(tenant, () => cxmImport(tenant, file));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Imported 360 assistantConversations, 240 vocConversations into tenant ${tenant} on the local stack at http://127.0.0.1:9.\n`,
    );
    // Rows go in batches: far fewer requests than rows.
    expect(bodies.length).toBeLessThanOrEqual(2 * Math.ceil(600 / 25));
    await expectAllStored(tenant, file);
  }, 120_000);

  it('refuses a bad element near the end of the file and writes nothing', async () => {
    const tenant = uniqueTenant('late-bad');
    const file = join(home, `${tenant}.json`);
    await generateImportFile(file, {
      assistant: 1500,
      voc: 1500,
      edit: (kind, index, row) => (kind === 'voc' && index === 1490 ? { ...row, Datetime: null } : row),
    });
    const { result, bodies } = await recordingRowWrites(tenant, () => cxmImport(tenant, file));
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual([
      expect.stringMatching(/^cxm: vocConversations\[1490\]: row 'v-001491' needs a Datetime in ISO 8601/),
    ]);
    expect(bodies).toEqual([]);
    expect((await storedRows(tenant, 'assistant')).size + (await storedRows(tenant, 'voc')).size).toBe(0);
    // Nothing was started, so there is nothing to resume either.
    const resumed = await cxmImport(tenant, file, { resume: true });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(/nothing to resume: no interrupted import of .* run the command without --resume/);
  }, 60_000);

  it('after a store outage mid-import exits with the --resume hint; --resume completes it without starting over', async () => {
    const tenant = uniqueTenant('outage');
    const file = join(home, `${tenant}.json`);
    await generateImportFile(file, { assistant: 500, voc: 300, days: 1 });
    const faults: InjectedFault[] = [];
    // The SDK's two attempts fail too: the outage outlasts them.
    const outage = () =>
      faults.push(
        ...ROW_WRITES.map((operation) =>
          proxy.inject({ operation, bodyContains: `"${tenant}#`, fault: 'InternalServerError' }),
        ),
      );
    const { result: broken } = await recordingRowWrites(tenant, (requests) =>
      brokenAt(requests, 12, outage, () => cxmImport(tenant, file, { env: { AWS_MAX_ATTEMPTS: '2' } })),
    );
    for (const fault of faults) fault.remove();
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /cxm: the import stopped after \d+ of 800 items were stored \(.*\); run the same command with --resume to continue from there/,
    );
    const stored = storedCount(broken.stderr);
    expect(stored).toBeGreaterThanOrEqual(25);
    expect(stored).toBeLessThan(800);

    const { result: resumed, bodies } = await recordingRowWrites(tenant, () =>
      cxmImport(tenant, file, { resume: true }),
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^Imported 500 assistantConversations, 300 vocConversations into tenant /);
    expect(resentAmong(bodies, tenant, file, stored)).toEqual([]);
    expect(bodies.length).toBeLessThan(800 / 25);
    await expectAllStored(tenant, file);
    // Done: the checkpoint is gone.
    expect((await cxmImport(tenant, file, { resume: true })).stderr).toMatch(/nothing to resume/);
  }, 180_000);

  it('after Ctrl-C, and after a kill of the resumed run, --resume still completes it (the bin, as a process: signals)', async () => {
    const tenant = uniqueTenant('killed');
    const file = join(home, `${tenant}.json`);
    await generateImportFile(file, { assistant: 900, voc: 700, days: 1 });
    // Sent, not answered: with 16 in flight, 40 sent means some two dozen batches are stored.
    const interrupted = await recordingRowWrites(tenant, (requests) =>
      cxmImportProcessBrokenAt(tenant, file, requests, 40, (child) => child.kill('SIGINT')),
    );
    expect(interrupted.result.code).toBe(130);
    expect(interrupted.result.stderr).toMatch(
      /cxm: SIGINT: stopped after \d+ of 1600 items were stored; run the same command with --resume/,
    );
    const stored = storedCount(interrupted.result.stderr);
    expect(stored).toBeGreaterThan(0);

    // A crash: no handler runs, the checkpoint is whatever was saved last (at most a second old).
    const killed = await recordingRowWrites(tenant, (requests) =>
      cxmImportProcessBrokenAt(tenant, file, requests, 10, (child) => child.kill('SIGKILL'), { resume: true }),
    );
    expect(killed.result.code).toBe(null);
    expect(resentAmong(killed.bodies, tenant, file, stored)).toEqual([]);

    const { result: completed, bodies } = await recordingRowWrites(tenant, () =>
      cxmImport(tenant, file, { resume: true }),
    );
    expect(completed.code).toBe(0);
    expect(resentAmong(bodies, tenant, file, stored)).toEqual([]);
    await expectAllStored(tenant, file);
  }, 180_000);

  it('retries throttled writes itself when the SDK does not', async () => {
    const tenant = uniqueTenant('throttled');
    const file = join(home, `${tenant}.json`);
    await generateImportFile(file, { assistant: 100, voc: 100, now: Date.now() - HOUR });
    const throttles = ROW_WRITES.map((operation) =>
      proxy.inject({ operation, bodyContains: `"${tenant}#`, fault: 'ThrottlingException', times: 3 }),
    );
    try {
      // One attempt per SDK call: each throttle reaches the import's own retry.
      const result = await cxmImport(tenant, file, { env: { AWS_MAX_ATTEMPTS: '1' } });
      expect(result.code).toBe(0);
      expect(throttles.reduce((sum, fault) => sum + fault.faulted, 0)).toBe(3);
      expect(result.stderr).toMatch(/importing: 200 of 200 items \(100%\), .*; 3 writes throttled and retried/);
    } finally {
      for (const fault of throttles) fault.remove();
    }
    await expectAllStored(tenant, file);
  }, 60_000);
});
