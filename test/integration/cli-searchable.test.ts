/**
 * `cxm import` and `cxm seed` on a local stack that serves reporting from OpenSearch: they report
 * success once what they wrote is searchable, so a script that writes and then lists sees every
 * row (the lists are asked at once, with no wait of the test's own). `--no-wait` reports once the
 * rows are stored; with nothing indexing them, a wait fails after `--wait-timeout`, saying they are
 * stored. On DynamoDB there is nothing to wait for (test/integration/cli-seed and cli-import).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '#test/support/cli-harness';
import { generateImportFile } from '#test/support/generate-import-file';
import { ownLines } from '#test/support/run-process';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';
import { tablesOfItsOwn } from '#test/support/worker-dynamo';

let api: TestApi;
let run: ReturnType<typeof cliFor>['cxm'];
const dirs: string[] = [];

beforeAll(async () => {
  api = await startTestApi({ reportingBackend: 'opensearch' });
  ({ cxm: run } = cliFor(api, 'cxm-searchable'));
});
afterAll(async () => {
  await api?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The list's total over the last month, asked once. */
async function total(tenant: string, kind: 'assistant' | 'voc'): Promise<number> {
  const { key } = await api.createKey([tenant], ['reporting:read']);
  const response = await api.call(
    'GET',
    `/api/v1/reporting/tenants/${tenant}/${kind}/conversations?range=last_month`,
    key,
  );
  expect(response.status).toBe(200);
  return (response.json as { total: number }).total;
}

describe('cxm on a local stack searching OpenSearch', () => {
  it('seed reports success once its rows are listed', async () => {
    const tenant = uniqueTenant('seeded');
    const result = await run(
      'seed',
      '--tenant',
      tenant,
      '--assistant',
      '300',
      '--voc',
      '200',
      '--jobs',
      '0',
      '--days',
      '3',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(ownLines(result.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Seeded 300 assistant rows, 200 VOC rows and 0 VOC jobs into tenant ${tenant} in .*, searchable [\\d.]+ s later\\.$`,
        ),
      ),
    ]);
    expect(await total(tenant, 'assistant')).toBe(300);
    expect(await total(tenant, 'voc')).toBe(200);
  });

  it('import reports success once its rows are listed, a re-import of changed rows once the changes are', async () => {
    const tenant = uniqueTenant('imported');
    const home = mkdtempSync(join(tmpdir(), 'cxm-searchable-file-'));
    dirs.push(home);
    const file = join(home, 'rows.json');
    await generateImportFile(file, { assistant: 240, voc: 160, days: 2 });
    const first = await run('import', '--tenant', tenant, file);
    expect(first.code, first.stderr).toBe(0);
    expect(ownLines(first.stdout)).toEqual([expect.stringMatching(/^Imported .*, searchable [\d.]+ s later\.$/)]);
    expect(await total(tenant, 'assistant')).toBe(240);
    expect(await total(tenant, 'voc')).toBe(160);

    // The same ids, each row changed: the summary waits for the new versions, not the old ones.
    await generateImportFile(file, {
      assistant: 240,
      voc: 160,
      days: 2,
      edit: (kind, _index, row) => (kind === 'assistant' ? { ...row, BotName: 'Renamed' } : row),
    });
    expect((await run('import', '--tenant', tenant, file)).code).toBe(0);
    const { key } = await api.createKey([tenant], ['reporting:read']);
    const listed = await api.call(
      'GET',
      `/api/v1/reporting/tenants/${tenant}/assistant/conversations?range=last_month&limit=5000`,
      key,
    );
    const names = new Set((listed.json as { data: Array<{ BotName: string }> }).data.map((row) => row.BotName));
    expect(names).toEqual(new Set(['Renamed']));
  });

  it('--no-wait reports once the rows are stored', async () => {
    const tenant = uniqueTenant('nowait');
    const result = await run('seed', '--tenant', tenant, '--assistant', '20', '--voc', '0', '--jobs', '0', '--no-wait');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(/searchable/);
  });

  it('with nothing indexing the rows, fails after --wait-timeout, saying they are stored', async () => {
    // A stack whose tables no gateway reads: its rows never reach the engine.
    const { cxm: stalled } = cliFor(api, 'cxm-unindexed', { tables: await tablesOfItsOwn('unindexed') });
    const tenant = uniqueTenant('stalled');
    const result = await stalled(
      'seed',
      '--tenant',
      tenant,
      '--assistant',
      '10',
      '--voc',
      '0',
      '--jobs',
      '0',
      '--wait-timeout',
      '2',
    );
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr).at(-1)).toMatch(
      /^cxm: 10 of the 10 rows written are stored but not searchable after 2 s without progress: .*run with --no-wait/,
    );
  });
});
