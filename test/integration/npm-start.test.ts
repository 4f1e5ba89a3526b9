/**
 * `npm start` as a newcomer runs it: the ready line, local.json, the README's curl, Ctrl-C
 * stopping DynamoDB Local too, state kept across restarts, and one-line startup errors.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_STAGE } from '#infra/local/build-proxy-event';
import { lambdaNode } from '#infra/local/lambda-node';
import { ensureLocalAssembly } from '#infra/local/local-assembly';
import { PROJECT_ROOT } from '#infra/project-root';
import { routes } from '#shared/routes';
import { ownLines, run, startUntil } from '#test/support/run-process';
import { documentedFetch } from '#test/support/test-api';

const READY = /CXM API listening on http:\/\/127\.0\.0\.1:(\d+)\n/;

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

/** The README and the folder guides: a marked block may sit in any of them, and in exactly one. */
const READMES = ['README.md', 'functions/README.md', 'infra/README.md', 'infra/local/README.md', 'shared/README.md', 'test/README.md'];

/** Runs a marked shell block of the READMEs against a started stack, as a reader would paste it. */
function runReadmeBlock(name: string, home: string, apiUrl: string): string {
  const marked = new RegExp(`<!-- readme-${name}[^>]*-->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``);
  const found = READMES.flatMap((file) => marked.exec(readFileSync(join(PROJECT_ROOT, file), 'utf8'))?.[1] ?? []);
  if (found.length !== 1) throw new Error(`${READMES.join(', ')} hold ${found.length} readme-${name} blocks, not one`);
  const block = found[0]!;
  const script = block.replaceAll('http://127.0.0.1:3000', apiUrl).replaceAll('./.cxm/local.json', join(home, 'local.json'));
  return execFileSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8', cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function startNpm(home: string) {
  // The banner's last line: everything before it has been printed.
  return startUntil('npm', ['start'], { PORT: '0', CXM_HOME: home, CXM_IN_MEMORY: undefined }, /Press Ctrl-C to stop\./);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ctrl-C to the whole process group; npm itself dies by the signal, our server must exit 0. */
async function stopWithCtrlC(started: Awaited<ReturnType<typeof startNpm>>, home: string): Promise<void> {
  const { pid } = JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as { pid: number };
  process.kill(-started.child.pid!, 'SIGINT');
  await started.exited;
  for (let i = 0; i < 50 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(isAlive(pid)).toBe(false);
  expect(started.output()).not.toMatch(/Error|error:/);
}

/** Two starts of the whole stack (a JVM, the demo data) in one test, beside the rest of the run. */
const TWO_STARTS_MS = 150_000;

describe('npm start', () => {
  it(
    'serves, prints a demo key, runs the README curl (201), stops cleanly and keeps its state',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'cxm-start-'));
      const first = await startNpm(home);
      let firstKey: string;
      try {
        const port = READY.exec(first.output())![1];
        expect(first.output()).toMatch(/Demo key:\s+cxm_[a-z0-9]{12}_[A-Za-z0-9]{40}_[A-Za-z0-9]{8}\n/);
        // The default runtime, on this machine's Node.
        expect(first.output()).toContain(`Functions:   sources on node ${process.version} `);
        const state = JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as Record<string, unknown>;
        expect(Object.keys(state).sort()).toEqual(['apiUrl', 'demo', 'dynamodbCredentials', 'dynamodbEndpoint', 'keyTagSecret', 'pid', 'recordingsBucket', 'region', 's3Endpoint', 'stage', 'tables']);
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
        expect(readdirSync(join(home, 'dynamodb')).filter((name) => name.endsWith('.db'))).toEqual([`${(state.dynamodbCredentials as { accessKeyId: string }).accessKeyId}_us-east-1.db`]);
        expect(state.s3Endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(state.apiUrl).toBe(`http://127.0.0.1:${port}`);
        expect(state.tables).toEqual({
          keys: 'cxm-local-keys',
          conversations: 'cxm-local-conversations',
          documents: 'cxm-local-documents',
          vocJobs: 'cxm-local-voc-jobs',
          reporting: 'cxm-local-reporting',
          reportingCounts: 'cxm-local-reporting-counts',
          idempotency: 'cxm-local-idempotency',
        });
        expect(first.output()).toMatch(/Demo key:/);
        firstKey = (state.demo as { key: string }).key;
        expect(first.output()).toContain(firstKey);

        const curl = runReadmeBlock('curl', home, String(state.apiUrl));
        expect(curl).toMatch(/^HTTP\/1\.1 201 Created/);
        expect(curl).toMatch(/"visibility":"internal"/);

        const provisioning = runReadmeBlock('provisioning', home, String(state.apiUrl));
        expect(provisioning.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 201', 'HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200']);
        expect(provisioning).toContain('{"name":"Grace","roles":["agent","supervisor"],"profile":{"lang":"en"}}');
        expect(provisioning).toMatch(/^Link: <http:\/\/127\.0\.0\.1:\d+\/api\/v1\/provisioning\/tenants\/demo\/users\?limit=2&cursor=[\w-]+>; rel="next"/m);

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
          .map((line) => JSON.parse(line) as { total: number; cursor: { next?: string }; data: Array<{ TenantID: string }> });
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
        expect(vocStatus).toMatchObject({ status: 'completed', analysis: 'call-analytics', file: expect.stringMatching(/^recordings\/demo\/[0-9A-Z]{26}\.flac$/) });
        expect(Number.isSafeInteger(vocStatus!.started)).toBe(true);
        expect(vocRow).toMatchObject({ ID: vocStatus!.recordingId, TenantID: 'demo', Duration: 14.659, Media: 'voice', SourceSystem: 'cxm-upload' });

        const mcp = JSON.parse(runReadmeBlock('mcp', home, String(state.apiUrl))) as { id: number; result: { structuredContent: { bots: Array<{ id: string }> } } };
        expect(mcp.id).toBe(1);
        expect(mcp.result.structuredContent.bots.map((bot) => bot.id)).toEqual(['bot-billing', 'bot-returns']);
        expect(javaProcessesFor(home)).toHaveLength(1);
      } finally {
        await stopWithCtrlC(first, home);
      }
      expect(javaProcessesFor(home)).toEqual([]);

      // Same state directory: the same demo key still authenticates, so the data survived.
      const second = await startNpm(home);
      try {
        expect(second.output()).toContain(firstKey);
        const state = JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as { apiUrl: string };
        const response = await documentedFetch(`${state.apiUrl}/api/v1/cxm/tenants/demo/conversations/conv-1002/internal-notes`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${firstKey}`, 'Content-Type': 'application/json' },
          body: '{"body":"after a restart"}',
        });
        expect(response.status).toBe(201);

        const port = new URL(state.apiUrl).port;
        const taken = await run('node', ['--import', 'tsx', 'infra/local/start.ts'], { PORT: port, CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-taken-')) });
        expect(taken.code).toBe(1);
        expect(ownLines(taken.stderr)).toEqual([`cxm: Port ${port} is already in use. Stop the process using it, or choose another with PORT=<port> (PORT=0 picks a free one).`]);
      } finally {
        await stopWithCtrlC(second, home);
      }
      expect(javaProcessesFor(home)).toEqual([]);
    },
    TWO_STARTS_MS,
  );

  it(
    "CXM_RUNTIME=bundles: every route served by its bundle on Lambda's Node, said in the banner, with REPORT lines at debug",
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'cxm-start-bundles-'));
      // Synthesized here (or, in a whole run, reused from the bundles project's synthesis of the same
      // sources): npm start then finds it by the hash of the sources, as a second start does.
      const { dir } = await ensureLocalAssembly(LOCAL_STAGE);
      const started = await startUntil(
        'npm',
        ['start'],
        { PORT: '0', CXM_HOME: home, CXM_IN_MEMORY: '1', CXM_RUNTIME: 'bundles', CXM_ASSEMBLY_DIR: undefined, CXM_LOG_LEVEL: 'debug' },
        /Press Ctrl-C to stop\./,
      );
      try {
        const node = lambdaNode();
        expect(started.output()).toContain(`Functions:   bundles on node ${node.version} (cloud assembly ${dir})`);
        expect(started.output()).not.toContain('synthesizing');
        const state = JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')) as { apiUrl: string; demo: { key: string } };
        const call = async (method: string, path: string, body?: unknown) => {
          const response = await documentedFetch(`${state.apiUrl}${path}`, {
            method,
            headers: {
              Authorization: `Bearer ${state.demo.key}`,
              ...(body !== undefined && { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }),
            },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          return response.status;
        };
        const docs = '/api/v1/provisioning/tenants/demo';
        // One request per route of the route table: each answers as the sources do.
        const statuses = {
          addInternalNote: await call('POST', '/api/v1/cxm/tenants/demo/conversations/conv-1001/internal-notes', { body: 'from a bundle' }),
          mcpBots: await call('POST', '/api/v1/mcp/tenants/demo/bots', { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
          listDocuments: await call('GET', `${docs}/bots`),
          getCurrentDocument: await call('GET', `${docs}/bots/bot-billing/versions/current`),
          replaceCurrentDocument: await call('POST', `${docs}/users/bundle-user/versions/current`, { name: 'Ada' }),
          mergeCurrentDocument: await call('PUT', `${docs}/users/bundle-user/versions/current`, { lang: 'en' }),
          listAssistantConversations: await call('GET', '/api/v1/reporting/tenants/demo/assistant/conversations?limit=5'),
          listVocConversations: await call('GET', '/api/v1/reporting/tenants/demo/voc/conversations?limit=5'),
          createRecording: await call('POST', '/api/v1/voc/tenants/demo/recordings', { fileName: 'call.wav', contentType: 'audio/wav', sizeBytes: 44 }),
          getVocJobStatus: await call('GET', '/api/v1/voc/tenants/demo/recording/job-0001/status'),
        };
        expect(statuses).toEqual({
          addInternalNote: 201,
          mcpBots: 200,
          listDocuments: 200,
          getCurrentDocument: 200,
          replaceCurrentDocument: 201,
          mergeCurrentDocument: 200,
          listAssistantConversations: 200,
          listVocConversations: 200,
          createRecording: 201,
          getVocJobStatus: 200,
        });
        expect(Object.keys(statuses).sort()).toEqual(routes.map((route) => route.id).sort());
        expect(started.output()).toMatch(/REPORT RequestId: \S+\tFunction: cxm-local-addInternalNote\tDuration: [\d.]+ ms\tMemory Size: \d+ MB\tMax Memory Used: \d+ MB\tInit Duration: [\d.]+ ms/);
      } finally {
        process.kill(-started.child.pid!, 'SIGINT');
        await started.exited;
      }
      expect(started.output()).not.toMatch(/fault|Error/);
    },
    TWO_STARTS_MS,
  );

  it('says in one line that Java 17+ is needed when it cannot run java', async () => {
    const result = await run('node', ['--import', 'tsx', 'infra/local/start.ts'], {
      PORT: '0',
      CXM_IN_MEMORY: '1',
      JAVA_HOME: '/nonexistent-java',
      CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-nojava-')),
    });
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/^cxm: Java 17 or newer is needed .*JAVA_HOME/)]);
  });

  it('refuses a CXM_RATE_LIMIT that is not <rate>/<burst>', async () => {
    const result = await run('node', ['--import', 'tsx', 'infra/local/start.ts'], { PORT: '0', CXM_RATE_LIMIT: 'fast', CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-rate-')) });
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/CXM_RATE_LIMIT=fast is not valid; give <rate per second>\/<burst>/)]);
  });

  it('refuses a CXM_IDEMPOTENCY_TTL_HOURS that is not a positive number of hours', async () => {
    const result = await run('node', ['--import', 'tsx', 'infra/local/start.ts'], { PORT: '0', CXM_IDEMPOTENCY_TTL_HOURS: '0', CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-ttl-')) });
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/CXM_IDEMPOTENCY_TTL_HOURS=0 is not valid; give a number of hours above 0/)]);
  });

  it('refuses a CXM_ACCEPT_UNTAGGED_KEYS that is not true or false', async () => {
    const result = await run('node', ['--import', 'tsx', 'infra/local/start.ts'], { PORT: '0', CXM_ACCEPT_UNTAGGED_KEYS: 'no', CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-untagged-')) });
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual(['cxm: CXM_ACCEPT_UNTAGGED_KEYS must be true or false, not "no"']);
  });

  it('refuses a PORT that is not a port number', async () => {
    const result = await run('node', ['--import', 'tsx', 'infra/local/start.ts'], { PORT: 'abc', CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-port-')) });
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/PORT=abc is not valid/)]);
  });
});
