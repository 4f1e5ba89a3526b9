/** `cxm seed` as an operator runs it, against a local stack found through $CXM_HOME/local.json. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatorFor } from '#shared/http/validator-for';
import { cliFor } from '#test/support/cli-harness';
import { ownLines } from '#test/support/run-process';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const DAY = 86_400_000;

let cxm: ReturnType<typeof cliFor>['cxm'];

type ListBody = { total: number; cursor: { next?: string }; data: Array<Record<string, unknown>> };

async function list(tenant: string, kind: 'assistant' | 'voc', key: string): Promise<ListBody> {
  const response = await api.call(
    'GET',
    `/api/v1/reporting/tenants/${tenant}/${kind}/conversations?range=last_week&limit=5000`,
    key,
  );
  expect(response.status).toBe(200);
  return response.json as ListBody;
}

beforeAll(async () => {
  api = await startTestApi({ authCacheTtlSeconds: 0 });
  ({ cxm } = cliFor(api, 'cxm-seed'));
});
afterAll(() => api.close());

describe('cxm seed', () => {
  const tenant = uniqueTenant('seed');
  const args = [
    'seed',
    '--tenant',
    tenant,
    '--assistant',
    '120',
    '--voc',
    '80',
    '--jobs',
    '5',
    '--days',
    '2',
    '--seed',
    '7',
  ];
  let key: string;
  let firstAssistant: ListBody;

  beforeAll(async () => {
    ({ key } = await api.createKey([tenant], ['reporting:*', 'voc:*']));
  });

  it('fills the lists with realistic rows and prints a one-line summary', async () => {
    const before = Date.now();
    const result = await cxm(...args);
    expect(result.code).toBe(0);
    expect(ownLines(result.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Seeded 120 assistant rows, 80 VOC rows and 5 VOC jobs into tenant ${tenant} in [\\d.]+ s \\(\\d+ rows/s\\) on the local stack at ${api.url}\\.$`,
        ),
      ),
    ]);
    // Not a TTY: no progress line.
    expect(ownLines(result.stderr)).toEqual([]);

    firstAssistant = await list(tenant, 'assistant', key);
    expect(validatorFor('AssistantReportList')(firstAssistant)).toBe(true);
    expect(firstAssistant.total).toBe(120);
    expect(firstAssistant.data).toHaveLength(120);
    expect(new Set(firstAssistant.data.map((row) => row.ID)).size).toBe(120);
    for (const row of firstAssistant.data) {
      expect(row).toMatchObject({
        TenantID: tenant,
        BotID: expect.any(String),
        BotName: expect.any(String),
        Category: expect.any(String),
        Subcategory: expect.any(String),
        Summary: expect.any(String),
        Duration: expect.any(Number),
        Escalated: expect.any(Boolean),
        'Contact Name': expect.any(String),
      });
      expect(row.CSat === null || (typeof row.CSat === 'number' && row.CSat >= 1 && row.CSat <= 5)).toBe(true);
      expect(row.Datetime as number).toBeGreaterThanOrEqual(before - 2 * DAY);
      expect(row.DatetimeUTC).toBe(new Date(row.Datetime as number).toISOString());
      expect(row.EndDatetime).toBe((row.Datetime as number) + (row.Duration as number) * 1000);
    }
    // Realistic means varied, not one row repeated.
    expect(new Set(firstAssistant.data.map((row) => row.BotName)).size).toBeGreaterThan(1);
    expect(new Set(firstAssistant.data.map((row) => row.Category)).size).toBeGreaterThan(1);
    expect(firstAssistant.data.some((row) => row.Escalated === true && typeof row.AgentName === 'string')).toBe(true);

    const voc = await list(tenant, 'voc', key);
    expect(validatorFor('VocReportList')(voc)).toBe(true);
    expect(voc.total).toBe(80);
    expect(voc.data).toHaveLength(80);
    for (const row of voc.data) {
      expect(row.Datetime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/);
      expect(row.DatetimeUTC).toBe(new Date(Date.parse(row.Datetime as string)).toISOString());
      expect(row).toMatchObject({
        TenantID: tenant,
        AgentName: expect.any(String),
        CustomerName: expect.any(String),
        Category: expect.any(String),
        CSat: expect.any(Number),
        Sentiment: expect.any(Number),
        Problems: expect.any(Array),
        KPIs: expect.any(Array),
      });
    }
  });

  it('creates VOC jobs served by the job status endpoint', async () => {
    const statuses = new Set<unknown>();
    for (let n = 1; n <= 5; n++) {
      const id = `job-${String(n).padStart(6, '0')}`;
      const response = await api.call('GET', `/api/v1/voc/tenants/${tenant}/recording/${id}/status`, key);
      expect(response.status).toBe(200);
      expect(validatorFor('VocJobStatus')(response.json)).toBe(true);
      const job = response.json as Record<string, unknown>;
      expect(job).toMatchObject({ id, recordingId: expect.stringMatching(/^rec-\d{6}$/) });
      expect(job.file).toBe(`recordings/${tenant}/${String(job.recordingId)}.wav`);
      expect(job.started as number).toBeGreaterThan(Date.now() - 2 * DAY - 60_000);
      expect(job.started as number).toBeLessThanOrEqual(Date.now());
      statuses.add(job.status);
    }
    expect([...statuses].every((status) => ['started', 'completed', 'failed'].includes(status as string))).toBe(true);
    expect((await api.call('GET', `/api/v1/voc/tenants/${tenant}/recording/job-000006/status`, key)).status).toBe(404);
  });

  it('re-running with the same seed overwrites the same ids: totals and content stay', async () => {
    const result = await cxm(...args);
    expect(result.code).toBe(0);
    const again = await list(tenant, 'assistant', key);
    expect(again.total).toBe(120);
    expect((await list(tenant, 'voc', key)).total).toBe(80);
    // Times move with "now"; everything else is the same row.
    const content = (body: ListBody) =>
      body.data
        .map(({ Datetime: _a, EndDatetime: _b, DatetimeUTC: _c, EndDatetimeUTC: _d, escalatedAt: _e, ...rest }) => rest)
        .sort((a, b) => String(a.ID).localeCompare(String(b.ID)));
    expect(content(again)).toEqual(content(firstAssistant));
  });
});

it('numbers rows across generation chunks without repeating an id or ticket', async () => {
  const tenant = uniqueTenant('seed-big');
  const result = await cxm(
    'seed',
    '--tenant',
    tenant,
    '--assistant',
    '1030',
    '--voc',
    '0',
    '--jobs',
    '0',
    '--days',
    '3',
  );
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/Seeded 1030 assistant rows, 0 VOC rows and 0 VOC jobs/);
  const { key } = await api.createKey([tenant], ['reporting:*']);
  const body = await list(tenant, 'assistant', key);
  expect(body.total).toBe(1030);
  const ids = body.data.map((row) => row.ID as string).sort();
  expect(ids[0]).toBe('asst-000001');
  expect(ids.at(-1)).toBe('asst-001030');
  expect(new Set(ids).size).toBe(1030);
  const tickets = body.data.map((row) => row.ticketId).filter((ticket) => ticket !== null);
  expect(tickets.length).toBeGreaterThan(0);
  expect(new Set(tickets).size).toBe(tickets.length);
});

it.each<[string, string[], RegExp]>([
  [
    'a count that is not a number',
    ['--assistant', 'many'],
    /^cxm: --assistant 'many' must be a whole number from 0 to 1000000$/,
  ],
  ['a negative count', ['--voc', '-1'], /--voc '-1' must be a whole number/],
  ['a fractional count', ['--jobs', '1.5'], /--jobs '1.5' must be a whole number/],
  ['a count over a million', ['--assistant', '1000001'], /--assistant '1000001'/],
  ['zero days', ['--days', '0'], /--days '0' must be a whole number from 1 to 3650/],
  ['more than ten years', ['--days', '3651'], /--days '3651'/],
  ['a seed that is not a number', ['--seed', 'abc'], /--seed 'abc'/],
])('refuses %s with exit code 1 and one line naming the option', async (_name, options, message) => {
  const tenant = uniqueTenant('seed-bad');
  const result = await cxm('seed', '--tenant', tenant, ...options);
  expect(result.code).toBe(1);
  expect(ownLines(result.stderr)).toEqual([expect.stringMatching(message)]);
  expect(result.stdout).toBe('');
});

it('refuses a tenant id that cannot be stored', async () => {
  const result = await cxm('seed', '--tenant', 'a/b');
  expect(result.code).toBe(1);
  expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/tenant 'a\/b'/)]);
});
