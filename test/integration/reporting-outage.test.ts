/**
 * The OpenSearch engine gone while rows keep coming (a node lost, a domain's blue/green gone wrong):
 * the lists answer 503 `Unavailable` with Retry-After instead of a short or empty page, the indexer
 * keeps the stream records it could not write and retries them as the stage's mapping does (until
 * they are six hours old), and once the engine is back every row written meanwhile is listed, none
 * lost and none twice.
 *
 * The engine goes as it would if `npm start` were killed outright: it runs in a process of its own
 * (the parent) that is sent SIGKILL, and must not outlive it (local-programs.ts, spawnTiedToParent);
 * the next start over its data folder, on the same port, finds what it held. It accepts the run's
 * key, which the gateway's functions sign with.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { type LocalOpenSearch, startLocalOpenSearch } from '#infra/local/emulators/opensearch/local-opensearch';
import { PROJECT_ROOT } from '#infra/project-root';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

const home = mkdtempSync(join(tmpdir(), 'cxm-outage-'));
const dataDir = join(home, 'opensearch');
const tenant = uniqueTenant('outage');
const now = Date.now();
let port: number;
let parent: { child: ChildProcess; pid: number; port: number } | undefined;
let engine: LocalOpenSearch | undefined;
let api: TestApi;
let key: string;
const faults: unknown[] = [];

/**
 * A process that starts the engine over the data folder on a free port of the engine's own binding
 * (none picked beforehand, which another program could take first), prints the JVM's pid and the
 * port, and waits.
 */
async function startParent(): Promise<{ child: ChildProcess; pid: number; port: number }> {
  const module = pathToFileURL(join(PROJECT_ROOT, 'infra/local/emulators/opensearch/local-opensearch.ts')).href;
  const script = `
    const { startLocalOpenSearch } = await import(${JSON.stringify(module)});
    const engine = await startLocalOpenSearch(JSON.parse(process.env.ENGINE_OPTIONS));
    console.log(JSON.stringify({ pid: engine.pid, port: Number(new URL(engine.endpoint).port) }));
    setInterval(() => {}, 60_000);
  `;
  const options = { dataDir, credentials: inject('opensearch').credentials, region: LOCAL_REGION };
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ENGINE_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const [line] = (await Promise.race([
      once(child.stdout!, 'data'),
      once(child, 'exit').then(() => {
        throw new Error(`the parent exited before its engine answered: ${output}`);
      }),
    ])) as [Buffer];
    return { child, ...(JSON.parse(line.toString()) as { pid: number; port: number }) };
  } catch (error) {
    // Its engine is tied to it and goes too.
    child.kill('SIGKILL');
    throw error;
  }
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `count` rows a minute apart, numbered from `first`, within the last day. */
const rows = (first: number, count: number) =>
  Array.from({ length: count }, (_, i) =>
    shapeRow('assistant', tenant, {
      ID: `r-${String(first + i).padStart(3, '0')}`,
      Datetime: now - (first + i + 1) * 60_000,
    }),
  );

beforeAll(async () => {
  parent = await startParent();
  ({ port } = parent);
  api = await startTestApi({
    reportingBackend: 'opensearch',
    opensearchEndpoint: `http://127.0.0.1:${port}`,
    onFault: (error) => faults.push(error),
  });
  ({ key } = await api.createKey([tenant], ['reporting:assistant.read']));
}, 120_000);

afterAll(async () => {
  await api?.close();
  if (parent?.child.exitCode === null) parent.child.kill('SIGKILL');
  await engine?.stop();
  rmSync(home, { recursive: true, force: true });
});

const listPath = (query = '') => `/api/v1/reporting/tenants/${tenant}/assistant/conversations?limit=100${query}`;

describe('the OpenSearch engine gone while rows are written', () => {
  it('answers 503 with Retry-After meanwhile, then lists every row written, none lost and none twice', async () => {
    await api.reportingRows.putRows(tenant, 'assistant', rows(0, 20));
    await api.indexed();
    expect((await api.call('GET', listPath(), key)).json).toMatchObject({ total: 20 });

    // The process that started the engine killed outright: the engine goes with it.
    const { child, pid } = parent!;
    child.kill('SIGKILL');
    await once(child, 'exit');
    for (let waited = 0; waited < 30_000 && running(pid); waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running(pid), 'the engine outlived the process that started it').toBe(false);

    // Written while the engine is gone: the indexer's batches fail and are kept for retry.
    await api.reportingRows.putRows(tenant, 'assistant', rows(20, 20));
    const down = await api.call('GET', listPath(), key);
    expect(down.status).toBe(503);
    expect(down.json).toEqual({ code: 'Unavailable', message: expect.any(String) });
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A rewrite of a row indexed before the outage, and one more row, while it is still down.
    await api.reportingRows.putRows(tenant, 'assistant', [
      shapeRow('assistant', tenant, { ID: 'r-000', Datetime: now - 60_000, BotName: 'rewritten' }),
      ...rows(40, 1),
    ]);

    // The next start over the same data folder and port: what it held, and what it missed.
    engine = await startLocalOpenSearch({
      dataDir,
      port,
      credentials: inject('opensearch').credentials,
      region: LOCAL_REGION,
    });
    await api.indexed();
    const ids: unknown[] = [];
    let query = '';
    for (;;) {
      const page = (await api.call('GET', listPath(query), key)).json as {
        total: number;
        cursor: { next?: string };
        data: Array<Record<string, unknown>>;
      };
      expect(page.total).toBe(41);
      ids.push(...page.data.map((row) => row.ID));
      if (!page.cursor.next) break;
      query = `&cursor=${page.cursor.next}`;
    }
    expect(ids.slice().sort()).toEqual(
      rows(0, 41)
        .map((row) => row.id)
        .sort(),
    );
    expect(new Set(ids).size).toBe(41);
    const rewritten = (await api.call('GET', listPath(), key)).json as { data: Array<Record<string, unknown>> };
    expect(rewritten.data.find((row) => row.ID === 'r-000')).toMatchObject({ BotName: 'rewritten' });
    // The retries were reported, not given up: nothing went where a stage's dead-letter queue is.
    expect(faults.map(String).filter((fault) => /dead-letter/.test(fault))).toEqual([]);
  }, 180_000);
});
