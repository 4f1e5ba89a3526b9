/**
 * `npm start` as a newcomer runs it, in two real starts over one state directory: the first prints
 * the banner (the Node the functions run on, the demo key), writes local.json into a directory
 * only its user reads, serves the READMEs' marked blocks, and stops with Ctrl-C, DynamoDB Local
 * too; the second, a restart in bundle mode with the lists on the OpenSearch engine, finds its
 * state (the first start's key still works, the table's rows are indexed, its documents, left as the
 * release before document versions kept them, are read, written and then versioned), serves every route from
 * its bundle with REPORT lines at debug, its engine refuses what is not signed, and a start on its
 * port is refused in one line. One more start shows that a wrong setting stops it in one line before anything
 * starts; each setting's line, the defaults and which wrong setting is reported first are tested on
 * the settings reader (test/unit/infra/local/read-start-settings.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaNode } from '#infra/lambda-node';
import type { LocalState } from '#infra/local/local-state';
import { readStartSettings } from '#infra/local/read-start-settings';
import { ensureLocalAssembly, type LocalAssembly } from '#infra/local/runtime/local-assembly';
import { isProcessAlive } from '#infra/local/runtime/process-alive';
import { PROJECT_ROOT } from '#infra/project-root';
import { LOCAL_STAGE } from '#infra/stage-names';
import { routes } from '#shared/api/route-table';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { documentClientOver } from '#shared/store/dynamo-client';
import { bindDynamoReportingIndex, bindReportingRowsStore } from '#shared/store/table-stores';
import { ownLines, run, startUntil } from '#test/support/run-process';
import { documentedFetch } from '#test/support/test-api';

const READY = /CXM API listening on http:\/\/127\.0\.0\.1:(\d+)\n/;

/** The local OpenSearch engines running over the state directory's data folder. */
function engineProcessesFor(home: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', '--', `path.home=${join(home, 'opensearch')}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

function javaProcessesFor(home: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', '--', `-dbPath ${join(home, 'dynamodb')}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Turns a running stack's data folder into what the release before document versions left: no
 * versions table, and documents never marked as versioned (their items otherwise the same).
 */
async function makePreviousRelease(state: LocalState): Promise<void> {
  const client = new DynamoDBClient({
    endpoint: state.dynamodbEndpoint,
    region: state.region,
    credentials: { ...state.dynamodbCredentials },
  });
  const store = documentClientOver(client);
  try {
    await client.send(new DeleteTableCommand({ TableName: state.tables.documentVersions }));
    for (let startKey: Record<string, unknown> | undefined, first = true; first || startKey; first = false) {
      const page = await store.send(
        new ScanCommand({
          TableName: state.tables.documents,
          ProjectionExpression: 'pk, sk',
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? [])
        await store.send(
          new UpdateCommand({ TableName: state.tables.documents, Key: item, UpdateExpression: 'REMOVE versioned' }),
        );
      startKey = page.LastEvaluatedKey;
    }
  } finally {
    client.destroy();
  }
}

/** The README and the folder guides: a marked block may sit in any of them, and in exactly one. */
const READMES = [
  'README.md',
  'functions/README.md',
  'infra/README.md',
  'infra/local/README.md',
  'shared/README.md',
  'test/README.md',
];

/** Runs a marked shell block of the READMEs against a started stack, as a reader would paste it. */
function runReadmeBlock(name: string, home: string, apiUrl: string): string {
  const marked = new RegExp(`<!-- readme-${name}[^>]*-->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``);
  const found = READMES.flatMap((file) => marked.exec(readFileSync(join(PROJECT_ROOT, file), 'utf8'))?.[1] ?? []);
  if (found.length !== 1) throw new Error(`${READMES.join(', ')} hold ${found.length} readme-${name} blocks, not one`);
  const block = found[0]!;
  const script = block
    .replaceAll('http://127.0.0.1:3000', apiUrl)
    .replaceAll('./.cxm/local.json', join(home, 'local.json'));
  return execFileSync('bash', ['-euo', 'pipefail', '-c', script], {
    encoding: 'utf8',
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function startNpm(home: string, env: Record<string, string | undefined> = {}) {
  // The banner's last line: everything before it has been printed.
  return startUntil(
    'npm',
    ['start'],
    { PORT: '0', CXM_HOME: home, CXM_IN_MEMORY: undefined, ...env },
    /Press Ctrl-C to stop\./,
  );
}

/** Ctrl-C to the whole process group; npm itself dies by the signal, our server must exit 0. */
async function stopWithCtrlC(started: Awaited<ReturnType<typeof startNpm>>, home: string): Promise<void> {
  const { pid } = JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as { pid: number };
  process.kill(-started.child.pid!, 'SIGINT');
  await started.exited;
  for (let i = 0; i < 50 && isProcessAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(isProcessAlive(pid)).toBe(false);
  expect(started.output()).not.toMatch(/fault|Error|error:/);
}

/**
 * Two starts of the whole stack (a JVM, the demo data; then bundle mode and the engine, a cold
 * start of every function) in one test, beside the rest of the run.
 */
const TWO_STARTS_MS = 180_000;

describe('npm start', () => {
  let assembly: LocalAssembly;

  // Synthesized here (or, in a whole run, reused from the bundles project's synthesis of the same
  // sources): the restart in bundle mode then finds it by the hash of the sources, as a second
  // start does.
  beforeAll(async () => {
    assembly = await ensureLocalAssembly(LOCAL_STAGE, 'opensearch');
  }, 300_000);

  it(
    "serves, prints a demo key, runs the READMEs' blocks, stops cleanly, and restarts in bundle mode over the same state",
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'cxm-start-'));
      // npm puts node_modules/.bin first on PATH, where Lambda's Node is linked: npm start and the
      // functions of its default runtime run on it (test/unit/infra/lambda-node.test.ts holds
      // its major to the deployed runtime's).
      const node = lambdaNode();
      const first = await startNpm(home);
      let firstKey: string;
      try {
        const port = READY.exec(first.output())![1];
        expect(first.output()).toMatch(/Demo key:\s+cxm_[a-z0-9]{12}_[A-Za-z0-9]{40}_[A-Za-z0-9]{8}\n/);
        expect(first.output()).toContain(
          `Functions:   sources on node ${node.version} (CXM_RUNTIME=bundles serves the deployable bundles)\n`,
        );
        const state = JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as Record<string, unknown>;
        expect(Object.keys(state).sort()).toEqual([
          'apiUrl',
          'demo',
          'dynamodbCredentials',
          'dynamodbEndpoint',
          'keyTagSecret',
          'pid',
          'recordingsBucket',
          'region',
          's3Endpoint',
          'stage',
          'tables',
        ]);
        // The key-tag secret the CLI tags keys with is the one kept in the state directory, the user's only.
        expect(state.keyTagSecret).toBe(readFileSync(join(home, 'key-tag-secret'), 'utf8').trim());
        expect(statSync(join(home, 'key-tag-secret')).mode & 0o777).toBe(0o600);
        // The store's key id selects its database and is a secret of this installation:
        // the state directory, the data and the credentials are the user's only.
        expect((state.dynamodbCredentials as { accessKeyId: string }).accessKeyId).toMatch(/^LCXM[A-Z2-7]{16}$/);
        expect(statSync(home).mode & 0o777).toBe(0o700);
        expect(statSync(join(home, 'local.json')).mode & 0o777).toBe(0o600);
        expect(statSync(join(home, 'dynamodb')).mode & 0o777).toBe(0o700);
        expect(statSync(join(home, 'dynamodb', 'credentials.json')).mode & 0o777).toBe(0o600);
        expect(readdirSync(join(home, 'dynamodb')).filter((name) => name.endsWith('.db'))).toEqual([
          `${(state.dynamodbCredentials as { accessKeyId: string }).accessKeyId}_us-east-1.db`,
        ]);
        expect(state.s3Endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(state.apiUrl).toBe(`http://127.0.0.1:${port}`);
        expect(state.tables).toEqual({
          keys: 'cxm-local-keys',
          conversations: 'cxm-local-conversations',
          documents: 'cxm-local-documents',
          documentVersions: 'cxm-local-document-versions',
          vocJobs: 'cxm-local-voc-jobs',
          reporting: 'cxm-local-reporting',
          reportingCounts: 'cxm-local-reporting-counts',
          idempotency: 'cxm-local-idempotency',
          webhookEndpoints: 'cxm-local-webhook-endpoints',
          webhookDeliveries: 'cxm-local-webhook-deliveries',
        });
        expect(first.output()).toMatch(/Demo key:/);
        firstKey = (state.demo as { key: string }).key;
        expect(first.output()).toContain(firstKey);

        const curl = runReadmeBlock('curl', home, String(state.apiUrl));
        expect(curl).toMatch(/^HTTP\/1\.1 201 Created/);
        expect(curl).toMatch(/"visibility":"internal"/);

        const provisioning = runReadmeBlock('provisioning', home, String(state.apiUrl));
        expect(provisioning.match(/^HTTP\/1\.1 \d+/gm)).toEqual([
          'HTTP/1.1 201',
          'HTTP/1.1 200',
          'HTTP/1.1 200',
          'HTTP/1.1 200',
        ]);
        expect(provisioning).toContain('{"name":"Grace","roles":["agent","supervisor"],"profile":{"lang":"en"}}');
        expect(provisioning).toMatch(
          /^Link: <http:\/\/127\.0\.0\.1:\d+\/api\/v1\/provisioning\/tenants\/demo\/users\?limit=2&cursor=[\w-]+>; rel="next"/m,
        );

        const conditional = runReadmeBlock('conditional', home, String(state.apiUrl)).trim().split('\n');
        expect(conditional.slice(0, 3)).toEqual(['201', '304', '200']);
        expect(JSON.parse(conditional[3]!)).toMatchObject({ code: 'Conflict' });

        const retried = runReadmeBlock('retry', home, String(state.apiUrl));
        expect(retried.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 201', 'HTTP/1.1 201']);
        expect(retried.match(/^Idempotent-Replayed: true/gim)).toHaveLength(1);
        const noteIds = retried.match(/"id":"(\w+)"/g);
        expect(noteIds).toHaveLength(2);
        expect(noteIds![0]).toBe(noteIds![1]);

        const [assistantPage, vocPage] = runReadmeBlock('reporting', home, String(state.apiUrl))
          .trim()
          .split('\n')
          .map(
            (line) =>
              JSON.parse(line) as { total: number; cursor: { next?: string }; data: Array<{ TenantID: string }> },
          );
        expect(assistantPage!.total).toBeGreaterThan(10);
        expect(assistantPage!.data).toHaveLength(2);
        expect(assistantPage!.cursor.next).toBeTruthy();
        expect(vocPage!.total).toBeGreaterThan(assistantPage!.total);
        expect(vocPage!.data[0]!.TenantID).toBe('demo');

        // The upload, as a reader pastes it: the job's status, then its row in the VOC list.
        const [vocStatus, vocRow] = runReadmeBlock('voc', home, String(state.apiUrl))
          .trim()
          .split('\n')
          .slice(-2)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        // The sample call has two channels: Amazon Transcribe Call Analytics (its local stand-in) analyses it.
        expect(vocStatus).toMatchObject({
          status: 'completed',
          analysis: 'call-analytics',
          file: expect.stringMatching(/^recordings\/demo\/[0-9A-Z]{26}\.flac$/),
        });
        expect(Number.isSafeInteger(vocStatus!.started)).toBe(true);
        expect(vocRow).toMatchObject({
          ID: vocStatus!.recordingId,
          TenantID: 'demo',
          Duration: 14.659,
          Media: 'voice',
          SourceSystem: 'cxm-upload',
        });

        const mcp = JSON.parse(runReadmeBlock('mcp', home, String(state.apiUrl))) as {
          id: number;
          result: { structuredContent: { bots: Array<{ id: string }> } };
        };
        expect(mcp.id).toBe(1);
        expect(mcp.result.structuredContent.bots.map((bot) => bot.id)).toEqual(['bot-billing', 'bot-returns']);
        expect(javaProcessesFor(home)).toHaveLength(1);
        await makePreviousRelease(JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as LocalState);
      } finally {
        await stopWithCtrlC(first, home);
      }
      expect(javaProcessesFor(home)).toEqual([]);

      // Same state directory, in bundle mode, the lists on the OpenSearch engine: the same demo key
      // still authenticates, so the data survived, the table's rows are indexed, and every route
      // answers from its bundle on Lambda's Node.
      const second = await startNpm(home, {
        CXM_RUNTIME: 'bundles',
        CXM_ASSEMBLY_DIR: undefined,
        CXM_LOG_LEVEL: 'debug',
        CXM_REPORTING_BACKEND: 'opensearch',
      });
      try {
        expect(second.output()).toContain(`Demo key:    ${firstKey}\n`);
        expect(second.output()).toContain(
          `Functions:   bundles on node ${node.version} (cloud assembly ${assembly.dir})\n`,
        );
        expect(second.output()).not.toContain('synthesizing');
        const state = JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as {
          apiUrl: string;
          demo: { key: string };
          opensearch: { endpoint: string; version: string; credentials: Record<string, unknown> };
        };
        expect(state.demo.key).toBe(firstKey);
        // The engine's key and nothing else (no SDK bookkeeping).
        expect(Object.keys(state.opensearch.credentials).sort()).toEqual(['accessKeyId', 'secretAccessKey']);
        expect(second.output()).toMatch(
          new RegExp(
            `Reporting: {3}OpenSearch ${state.opensearch.version} at ${state.opensearch.endpoint} \\(started in [\\d.]+ s; (\\d+) rows indexed from the table in [\\d.]+ s\\)\n`,
          ),
        );
        expect(Number(/(\d+) rows indexed/.exec(second.output())![1])).toBeGreaterThan(4000);
        // Loopback is not a secret: the engine answers nothing unsigned.
        expect((await fetch(`${state.opensearch.endpoint}/_cat/indices`)).status).toBe(403);
        // Both lists from the engine, with the totals DynamoDB's index gives for the same rows.
        const stored = JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as LocalState;
        // The store itself, with the credentials local.json gives the CLI.
        const store = documentClientOver(
          new DynamoDBClient({
            endpoint: stored.dynamodbEndpoint,
            region: stored.region,
            credentials: { ...stored.dynamodbCredentials },
          }),
        );
        const inTable = bindDynamoReportingIndex(store, stored.tables);
        const window = { from: Date.now() - 40 * 86_400_000, to: Date.now() + 86_400_000 };
        const range = `from=${new Date(window.from).toISOString()}&to=${new Date(window.to).toISOString()}&limit=5`;
        for (const kind of ['assistant', 'voc'] as const) {
          const served = await documentedFetch(
            `${state.apiUrl}/api/v1/reporting/tenants/demo/${kind}/conversations?${range}`,
            {
              headers: { Authorization: `Bearer ${firstKey}` },
            },
          );
          const expected = await inTable.page({
            tenantId: 'demo',
            kind,
            window,
            limit: 5,
            withTotal: true,
            maxBytes: 5_000_000,
          });
          const body = (await served.json()) as { total: number; data: Array<{ ID: string }> };
          expect(body.total, kind).toBe(expected.total);
          expect(body.data).toHaveLength(5);
        }
        // A row written now reaches the engine through the indexer's bundle, as the table's stream feeds it.
        const written = Date.now();
        await bindReportingRowsStore(store, stored.tables).putRows('demo', 'assistant', [
          shapeRow('assistant', 'demo', { ID: 'from-the-stream', Datetime: written }),
        ]);
        const since = `${state.apiUrl}/api/v1/reporting/tenants/demo/assistant/conversations?from=${new Date(written - 1000).toISOString()}`;
        let indexed = false;
        for (let waited = 0; !indexed && waited < 30_000; waited += 250) {
          const answer = await documentedFetch(since, { headers: { Authorization: `Bearer ${firstKey}` } });
          const { data } = (await answer.json()) as { data: Array<{ ID: string }> };
          indexed = data.some((row) => row.ID === 'from-the-stream');
          if (!indexed) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        expect(indexed, 'a row written to the table is listed from the engine within 30 s').toBe(true);
        expect(second.output()).toMatch(/REPORT RequestId: \S+\tFunction: cxm-local-reporting-indexer\t/);
        expect(statSync(join(home, 'opensearch')).mode & 0o777).toBe(0o700);
        const send = (method: string, path: string, body?: unknown) =>
          documentedFetch(`${state.apiUrl}${path}`, {
            method,
            headers: {
              Authorization: `Bearer ${firstKey}`,
              ...(body !== undefined && {
                'Content-Type': 'application/json',
                Accept: 'application/json, text/event-stream',
              }),
            },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
        const call = async (method: string, path: string, body?: unknown) => (await send(method, path, body)).status;
        const docs = '/api/v1/provisioning/tenants/demo';
        // The previous release's document starts its history at its present state, then is versioned.
        const history = `${docs}/bots/bot-billing/versions`;
        const present = await send('GET', `${history}/current`);
        const presentVersion = Number(present.headers.get('content-location')?.split('/').at(-1));
        const listedVersions = async () =>
          ((await (await send('GET', history)).json()) as { version: number; change: string }[]).map(
            (entry) => entry.version,
          );
        expect(await listedVersions()).toEqual([presentVersion]);
        const merged = await send('PUT', `${history}/current`, { restarted: true });
        expect(merged.headers.get('content-location')).toMatch(new RegExp(`/versions/${presentVersion + 1}$`));
        expect(await listedVersions()).toEqual([presentVersion + 1, presentVersion]);
        const kept = await send('GET', `${history}/${presentVersion}`);
        expect(await kept.json()).toEqual(await present.json());
        const hooks = '/api/v1/webhooks/tenants/demo/endpoints';
        const registered = await send('POST', hooks, { url: 'http://127.0.0.1:9/hooks', events: ['note.created'] });
        const endpoint = `${hooks}/${((await registered.json()) as { id: string }).id}`;
        // One request per route of the route table: each answers as the sources do.
        const statuses = {
          addInternalNote: await call('POST', '/api/v1/cxm/tenants/demo/conversations/conv-1002/internal-notes', {
            body: 'after a restart, from a bundle',
          }),
          mcpBots: await call('POST', '/api/v1/mcp/tenants/demo/bots', { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
          listDocuments: await call('GET', `${docs}/bots`),
          getCurrentDocument: await call('GET', `${docs}/bots/bot-billing/versions/current`),
          replaceCurrentDocument: await call('POST', `${docs}/users/bundle-user/versions/current`, { name: 'Ada' }),
          mergeCurrentDocument: await call('PUT', `${docs}/users/bundle-user/versions/current`, { lang: 'en' }),
          listDocumentVersions: await call('GET', `${docs}/users/bundle-user/versions`),
          getDocumentVersion: await call('GET', `${docs}/users/bundle-user/versions/1`),
          restoreDocumentVersion: await call('POST', `${docs}/users/bundle-user/versions/1/restore`),
          listAssistantConversations: await call(
            'GET',
            '/api/v1/reporting/tenants/demo/assistant/conversations?limit=5',
          ),
          listVocConversations: await call('GET', '/api/v1/reporting/tenants/demo/voc/conversations?limit=5'),
          createRecording: await call('POST', '/api/v1/voc/tenants/demo/recordings', {
            fileName: 'call.wav',
            contentType: 'audio/wav',
            sizeBytes: 44,
          }),
          getVocJobStatus: await call('GET', '/api/v1/voc/tenants/demo/recording/job-0001/status'),
          createWebhookEndpoint: registered.status,
          listWebhookEndpoints: await call('GET', hooks),
          getWebhookEndpoint: await call('GET', endpoint),
          updateWebhookEndpoint: await call('PATCH', endpoint, { description: 'from a bundle' }),
          rotateWebhookSecret: await call('POST', `${endpoint}/rotate-secret`),
          listWebhookDeliveries: await call('GET', `${endpoint}/deliveries`),
          recoverWebhookDeliveries: await call('POST', `${endpoint}/recover`, { since: '2026-01-01T00:00:00Z' }),
          deleteWebhookEndpoint: await call('DELETE', endpoint),
        };
        expect(statuses).toEqual({
          addInternalNote: 201,
          mcpBots: 200,
          listDocuments: 200,
          getCurrentDocument: 200,
          replaceCurrentDocument: 201,
          mergeCurrentDocument: 200,
          listDocumentVersions: 200,
          getDocumentVersion: 200,
          restoreDocumentVersion: 200,
          listAssistantConversations: 200,
          listVocConversations: 200,
          createRecording: 201,
          getVocJobStatus: 200,
          createWebhookEndpoint: 201,
          listWebhookEndpoints: 200,
          getWebhookEndpoint: 200,
          updateWebhookEndpoint: 200,
          rotateWebhookSecret: 200,
          listWebhookDeliveries: 200,
          recoverWebhookDeliveries: 202,
          deleteWebhookEndpoint: 204,
        });
        expect(Object.keys(statuses).sort()).toEqual(routes.map((route) => route.id).sort());
        expect(second.output()).toMatch(
          /REPORT RequestId: \S+\tFunction: cxm-local-addInternalNote\tDuration: [\d.]+ ms\tMemory Size: \d+ MB\tMax Memory Used: \d+ MB\tInit Duration: [\d.]+ ms/,
        );

        const port = new URL(state.apiUrl).port;
        const taken = await run('node', ['--import', 'tsx', 'infra/local/start.ts'], {
          PORT: port,
          CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-taken-')),
        });
        expect(taken.code).toBe(1);
        expect(ownLines(taken.stderr)).toEqual([
          `cxm: Port ${port} is already in use. Stop the process using it, or choose another with PORT=<port> (PORT=0 picks a free one).`,
        ]);
      } finally {
        await stopWithCtrlC(second, home);
      }
      expect(javaProcessesFor(home)).toEqual([]);
      expect(engineProcessesFor(home)).toEqual([]);
    },
    TWO_STARTS_MS,
  );

  it('a wrong setting stops it in one line, with a non-zero exit, before anything starts', async () => {
    // Not made: the state directory is the first thing a start makes.
    const home = join(mkdtempSync(join(tmpdir(), 'cxm-wrong-')), 'state');
    const env = { PORT: '0', CXM_HOME: home, CXM_RATE_LIMIT: 'fast' };
    const reading = readStartSettings({ ...process.env, ...env }, PROJECT_ROOT);
    if (reading.ok) throw new Error('CXM_RATE_LIMIT=fast was taken');
    const result = await run('npm', ['start'], env);
    expect(ownLines(result.stderr)).toEqual([`cxm: ${reading.message}`]);
    expect(result.code).toBe(1);
    expect(ownLines(result.stdout)).toEqual([]);
    expect(existsSync(home)).toBe(false);
  });
});
