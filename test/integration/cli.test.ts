/**
 * The `cxm` CLI as an operator runs it, against a local stack found through $CXM_HOME/local.json:
 * in this process (runCli, test/support/cli-harness.ts), and as the bin itself for what only a
 * process shows (its exit code and stderr without a stack, `npx cxm --help`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '#test/support/cli-harness';
import { ownLines, run } from '#test/support/run-process';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';
import { storeUntaggedKey } from '#test/support/untagged-key';

let api: TestApi;
let home: string;
const tenant = uniqueTenant('cli');

let cxm: ReturnType<typeof cliFor>['cxm'];

beforeAll(async () => {
  api = await startTestApi({ authCacheTtlSeconds: 0 });
  ({ home, cxm } = cliFor(api, 'cxm-cli'));
  await api.addConversation(tenant, { id: 'c1' });
});
afterAll(() => api.close());

describe('cxm keys', () => {
  it('create prints a working key once; list shows it without the key; revoke stops it', async () => {
    const created = await cxm(
      'keys',
      'create',
      '--tenant',
      tenant,
      '--scope',
      'cxm:conversations.write',
      '--name',
      'ops',
    );
    expect(created.code).toBe(0);
    const key = /Key:\s+(cxm_\S+)/.exec(created.stdout)?.[1];
    expect(key).toMatch(/^cxm_[a-z0-9]{12}_[A-Za-z0-9]{40}_[A-Za-z0-9]{8}$/);
    expect(created.stdout).toMatch(/shown only once/);
    expect((await api.postNote(tenant, 'c1', key)).status).toBe(201);

    const keyId = key!.slice(4, 16);
    const listed = await cxm('keys', 'list', '--tenant', tenant);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`\\n${keyId} +active +yes +ops `));
    expect(listed.stdout).not.toContain(key!.slice(17, 57));

    const revoked = await cxm('keys', 'revoke', keyId);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`Revoked key ${keyId}`));
    expect((await api.postNote(tenant, 'c1', key)).status).toBe(401);
    expect((await cxm('keys', 'list', '--tenant', tenant)).stdout).toMatch(/revoked/);
  });

  it('list shows which active keys have no tag (issued before key tags) and says how to replace them', async () => {
    const owner = uniqueTenant('cli-untagged');
    const untagged = await storeUntaggedKey(api.keys, [owner], ['cxm:*']);
    const tagged = JSON.parse(
      (await cxm('keys', 'create', '--tenant', owner, '--scope', 'cxm:*', '--json')).stdout,
    ) as { id: string };
    const listed = await cxm('keys', 'list', '--tenant', owner);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID +STATUS +TAG +NAME /);
    expect(listed.stdout).toMatch(new RegExp(`\\n${untagged.keyId} +active +no `));
    expect(listed.stdout).toMatch(new RegExp(`\\n${tagged.id} +active +yes `));
    expect(listed.stdout).toMatch(
      /\n1 active key has no tag \(issued before key tags\): .*edge\.acceptUntaggedKeys.*'cxm keys create', then 'cxm keys revoke'/,
    );
    const json = JSON.parse((await cxm('keys', 'list', '--tenant', owner, '--json')).stdout) as Array<{
      id: string;
      tagged: boolean;
    }>;
    expect(json.map(({ id, tagged }) => ({ id, tagged }))).toEqual(
      expect.arrayContaining([
        { id: untagged.keyId, tagged: false },
        { id: tagged.id, tagged: true },
      ]),
    );
    // Replaced: the untagged key revoked, nothing left to say.
    await cxm('keys', 'revoke', untagged.keyId);
    expect((await cxm('keys', 'list', '--tenant', owner)).stdout).not.toMatch(/no tag/);
  });

  it('create --json prints {id, key, tenants, scopes, expiresAt}, and the key stored is only its hash', async () => {
    const created = await cxm(
      'keys',
      'create',
      '--tenant',
      tenant,
      '--tenant',
      `${tenant}-b`,
      '--scope',
      'cxm:*',
      '--expires',
      '2099-01-01T00:00:00Z',
      '--json',
    );
    expect(created.code).toBe(0);
    const json = JSON.parse(created.stdout) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['expiresAt', 'id', 'key', 'scopes', 'tenants']);
    expect(json).toMatchObject({
      tenants: [tenant, `${tenant}-b`],
      scopes: ['cxm:*'],
      expiresAt: '2099-01-01T00:00:00.000Z',
    });
    const stored = (await api.keys.list(tenant)).find((k) => k.keyId === json.id);
    expect(JSON.stringify(stored)).not.toContain(json.key as string);
    expect((await api.postNote(tenant, 'c1', json.key as string)).status).toBe(201);
  });

  it('create --expires takes a date alone as its start in UTC, and a date-time with an offset as that instant', async () => {
    for (const [given, stored] of [
      ['2099-01-31', '2099-01-31T00:00:00.000Z'],
      ['2099-02-28T23:30:00+02:00', '2099-02-28T21:30:00.000Z'],
    ]) {
      const created = await cxm(
        'keys',
        'create',
        '--tenant',
        tenant,
        '--scope',
        'cxm:*',
        '--expires',
        given!,
        '--json',
      );
      expect(created.code, given).toBe(0);
      expect((JSON.parse(created.stdout) as { expiresAt: string }).expiresAt).toBe(stored);
    }
  });

  it.each<[string, string[], RegExp]>([
    ['an unknown scope area', ['--tenant', 'acme', '--scope', 'crm:*'], /unknown area 'crm'/],
    ['a malformed scope', ['--tenant', 'acme', '--scope', 'write'], /area:resource.action/],
    ['a tenant with a separator', ['--tenant', 'a/b', '--scope', 'cxm:*'], /tenant 'a\/b'/],
    [
      'an expiry in the past',
      ['--tenant', 'acme', '--scope', 'cxm:*', '--expires', '2001-01-01T00:00:00Z'],
      /in the past/,
    ],
    ['an expiry that is not ISO 8601', ['--tenant', 'acme', '--scope', 'cxm:*', '--expires', 'tomorrow'], /ISO 8601/],
    // Date.parse would roll these over to March (the second into a future March, so a key was issued).
    [
      'an expiry date that does not exist',
      ['--tenant', 'acme', '--scope', 'cxm:*', '--expires', '2026-02-30'],
      /--expires '2026-02-30' is not .*on a day that exists/,
    ],
    [
      'an expiry time on a day that does not exist',
      ['--tenant', 'acme', '--scope', 'cxm:*', '--expires', '2099-02-30T00:00:00Z'],
      /--expires '2099-02-30T00:00:00Z' is not .*on a day that exists/,
    ],
  ])('create refuses %s with one clear line', async (_name, args, message) => {
    const result = await cxm('keys', 'create', ...args);
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(message)]);
  });

  it('revoke of an unknown id fails and says how to find ids', async () => {
    const result = await cxm('keys', 'revoke', 'zzzzzzzzzzzz');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no key with id 'zzzzzzzzzzzz'.*cxm keys list/);
  });

  it('without a local stack it says how to start one (the bin, as a process)', async () => {
    const result = await run('node', ['infra/cli/cxm.mjs', 'keys', 'list'], {
      CXM_HOME: mkdtempSync(join(tmpdir(), 'cxm-none-')),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no local stack found.*npm start/);
  });
});

describe('cxm --help', () => {
  it('npx cxm --help lists every command on stdout and exits 0, as in process', async () => {
    const commands = ['keys', 'import', 'seed', 'reporting', 'smoke', 'preflight', 'recordings'];
    const spawned = await run('npx', ['cxm', '--help'], {});
    expect(spawned.code).toBe(0);
    expect(ownLines(spawned.stderr)).toEqual([]);
    expect(spawned.stdout).toMatch(/^Usage: cxm \[options\] \[command\]\n/);
    for (const command of commands) expect(spawned.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    expect(await cxm('--help')).toEqual({ code: 0, stdout: spawned.stdout, stderr: '' });
  });
});

describe('cxm import', () => {
  it('loads conversations (defaults customer/open; ISO or epoch locks), idempotently', async () => {
    const importTenant = uniqueTenant('imp');
    const file = join(home, 'import.json');
    writeFileSync(
      file,
      JSON.stringify({
        conversations: [
          { id: 'plain' },
          { id: 'closed', status: 'closed' },
          { id: 'locked', lockedUntil: '2099-01-01T00:00:00Z' },
          { id: 'lock-over', lockedUntil: 1_000 },
          { id: 'internal', type: 'internal' },
        ],
      }),
    );
    for (let i = 0; i < 2; i++) {
      const result = await cxm('import', '--tenant', importTenant, file);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Imported 5 conversation/);
    }
    expect(await api.conversations.getConversation(importTenant, 'plain')).toMatchObject({
      type: 'customer',
      status: 'open',
    });
    expect(await api.conversations.getConversation(importTenant, 'locked')).toMatchObject({
      lockedUntil: Date.parse('2099-01-01T00:00:00Z'),
    });
    const { key } = await api.createKey([importTenant], ['cxm:write']);
    const statuses = await Promise.all(
      ['plain', 'closed', 'locked', 'lock-over', 'internal'].map(
        async (id) => (await api.postNote(importTenant, id, key)).status,
      ),
    );
    expect(statuses).toEqual([201, 409, 409, 201, 404]);
  });

  it('loads documents by collection, exactly and idempotently', async () => {
    const importTenant = uniqueTenant('docs');
    const file = join(home, 'documents.json');
    const bot = { name: 'Helper', nested: { list: [1, { a: null }] }, unicode: 'ü😀' };
    writeFileSync(
      file,
      JSON.stringify({
        documents: {
          bots: [
            { id: 'b1', data: bot },
            { id: 'b2', data: {} },
          ],
          users: [{ id: 'u1', data: { n: 1 } }],
        },
      }),
    );
    for (let i = 0; i < 2; i++) {
      const result = await cxm('import', '--tenant', importTenant, file);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Imported 3 documents into/);
    }
    expect((await api.documents.read(importTenant, 'bots', 'b1'))?.json).toBe(JSON.stringify(bot));
    expect(
      (await api.documents.list(importTenant, 'bots', { limit: 10, maxBytes: 1e6 })).entries.map((e) => e.id),
    ).toEqual(['b1', 'b2']);
  });

  it('loads reporting rows, served by the lists with TenantID set to the tenant', async () => {
    const importTenant = uniqueTenant('rows');
    const file = join(home, 'rows.json');
    const at = Date.now() - 3_600_000;
    writeFileSync(
      file,
      JSON.stringify({
        assistantConversations: [{ ID: 'a1', Datetime: at, TenantID: 'someone-else', CSat: 5 }],
        vocConversations: [{ ID: 'v1', Datetime: new Date(at).toISOString().replace('Z', '+00:00'), Sentiment: -0.5 }],
      }),
    );
    const result = await cxm('import', '--tenant', importTenant, file);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Imported 1 assistantConversations, 1 vocConversations into/);
    const { key: k } = await api.createKey([importTenant], ['reporting:*']);
    const assistant = (await api.call('GET', `/api/v1/reporting/tenants/${importTenant}/assistant/conversations`, k))
      .json as { data: Array<Record<string, unknown>> };
    expect(assistant.data).toEqual([
      expect.objectContaining({ ID: 'a1', TenantID: importTenant, CSat: 5, DatetimeUTC: new Date(at).toISOString() }),
    ]);
    const voc = (await api.call('GET', `/api/v1/reporting/tenants/${importTenant}/voc/conversations`, k)).json as {
      data: Array<Record<string, unknown>>;
    };
    expect(voc.data).toEqual([expect.objectContaining({ ID: 'v1', Sentiment: -0.5 })]);
  });

  it('loads VOC jobs, served by the job status endpoint', async () => {
    const importTenant = uniqueTenant('jobs');
    const file = join(home, 'jobs.json');
    const job = { id: 'j1', status: 'failed', started: 1767225600000, file: 'recordings/x/r1.wav', recordingId: 'r1' };
    writeFileSync(file, JSON.stringify({ vocJobs: [job] }));
    const result = await cxm('import', '--tenant', importTenant, file);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Imported 1 vocJobs into/);
    const { key: k } = await api.createKey([importTenant], ['voc:*']);
    expect((await api.call('GET', `/api/v1/voc/tenants/${importTenant}/recording/j1/status`, k)).json).toEqual(job);
  });

  it.each<[string, unknown, RegExp]>([
    [
      'a VOC job with an unknown status',
      { vocJobs: [{ id: 'j', status: 'running', started: 1, file: 'f', recordingId: 'r' }] },
      /'vocJobs.0.status' must be one of started, completed, failed/,
    ],
    [
      'a VOC job without its file',
      { vocJobs: [{ id: 'j', status: 'started', started: 1, recordingId: 'r' }] },
      /'file' is required/,
    ],
    [
      'a document that is not an object',
      { documents: { bots: [{ id: 'x', data: [1] }] } },
      /'documents.bots.0.data' must be an object/,
    ],
    [
      'a document over 350 KB',
      { documents: { bots: [{ id: 'x', data: { v: 'x'.repeat(360 * 1024) } }] } },
      /larger than 358400 bytes/,
    ],
    ['a docId over 1024 bytes', { documents: { bots: [{ id: '😀'.repeat(300), data: {} }] } }, /too long to store/],
    [
      'a document nested too deep',
      { documents: { bots: [{ id: 'x', data: JSON.parse(`${'{"a":'.repeat(101)}1${'}'.repeat(101)}`) }] } },
      /deeper than 100 levels/,
    ],
    ['a malformed collection name', { documents: { 'a/b': [] } }, /Name 'a\/b' in 'documents' must be 1 to 64 letters/],
    [
      'a reporting row without Datetime',
      { assistantConversations: [{ ID: 'a1' }] },
      /assistantConversations\[0\]: row 'a1' needs a Datetime in epoch milliseconds/,
    ],
    [
      'a reporting row with a field rows do not have',
      { vocConversations: [{ ID: 'v1', Datetime: '2026-01-01T09:00:00+01:00', Transcript: 'x' }] },
      /fields the voc rows do not have: Transcript/,
    ],
    ['an unknown member', { tickets: [] }, /Unknown property 'tickets'/],
    ['a conversation without id', { conversations: [{ status: 'open' }] }, /'id' is required/],
    ['an id with a separator', { conversations: [{ id: 'a/b' }] }, /must not contain/],
    ['a lock that is not a time', { conversations: [{ id: 'x', lockedUntil: 'soon' }] }, /lockedUntil 'soon'/],
    [
      'a lock on a day that does not exist',
      { conversations: [{ id: 'x', lockedUntil: '2026-02-30T00:00:00Z' }] },
      /lockedUntil '2026-02-30T00:00:00Z' is neither .*on a day that exists/,
    ],
    ['a duplicate id', { conversations: [{ id: 'x' }, { id: 'x' }] }, /appears more than once/],
    ['an id too long for the store', { conversations: [{ id: 'x' }, { id: '😀'.repeat(512) }] }, /too long to store/],
  ])('refuses %s and writes nothing', async (_name, content, message) => {
    const importTenant = uniqueTenant('bad');
    const file = join(home, `bad-${importTenant}.json`);
    writeFileSync(file, JSON.stringify(content));
    const result = await cxm('import', '--tenant', importTenant, file);
    expect(result.code).toBe(1);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(message)]);
    expect(await api.conversations.getConversation(importTenant, 'x')).toBeUndefined();
  });
});
