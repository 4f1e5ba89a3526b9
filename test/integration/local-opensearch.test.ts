/**
 * The local OpenSearch engine (infra/local/opensearch): loopback is not a secret. Only a request
 * signed with SigV4 (service `es`, the local region) under the one key it was started with reaches
 * the engine; anything else, whatever its path, is 403 and changes nothing. It listens on 127.0.0.1
 * only, its node transport takes no connection, and it does not outlive the process that started
 * it, whose data folder the next start finds whole.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalCredentials, newLocalCredentials } from '#infra/local/dynamodb-local';
import { startLocalOpenSearch } from '#infra/local/opensearch/local-opensearch';
import { PROJECT_ROOT } from '#infra/project-root';
import { createOpenSearchClient } from '#shared/store/opensearch-client';
import { runOpenSearch } from '#test/support/run-opensearch';

const engine = runOpenSearch();
const url = new URL(engine.endpoint);

interface Signing {
  credentials?: LocalCredentials;
  region?: string;
  service?: string;
  signingDate?: Date;
}

/** A request as a client signs it (the SDK's own signer), sent as it is or changed after signing. */
async function send(
  method: string,
  path: string,
  body: string | undefined,
  signing: Signing | 'unsigned',
  tamper: (request: { path: string; body: string | undefined }) => { path: string; body: string | undefined } = (r) =>
    r,
): Promise<{ status: number; text: string }> {
  const [pathname, query = ''] = path.split('?');
  let headers: Record<string, string> = {
    host: url.host,
    ...(body !== undefined && { 'content-type': 'application/json' }),
  };
  if (signing !== 'unsigned') {
    const signer = new SignatureV4({
      service: signing.service ?? 'es',
      region: signing.region ?? engine.region,
      credentials: signing.credentials ?? engine.credentials,
      sha256: Sha256,
    });
    const signed = await signer.sign(
      {
        method,
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: pathname!,
        query: Object.fromEntries(new URLSearchParams(query)),
        headers,
        body,
      },
      signing.signingDate ? { signingDate: signing.signingDate } : undefined,
    );
    headers = signed.headers;
  }
  const { host: _host, ...sent } = headers;
  const sending = tamper({ path, body });
  const response = await fetch(`${engine.endpoint}${sending.path}`, { method, headers: sent, body: sending.body });
  return { status: response.status, text: await response.text() };
}

/** Whether the engine holds an index of that name, asked with its key. */
async function indexExists(name: string): Promise<boolean> {
  return (await send('HEAD', `/${name}`, undefined, {})).status === 200;
}

describe('the run engine, signed with its key', () => {
  it('answers, with the version of the stages', async () => {
    const root = await send('GET', '/', undefined, {});
    expect(root.status).toBe(200);
    expect(JSON.parse(root.text)).toMatchObject({ version: { number: engine.version } });
  });

  it('takes a write and a query whose escapes the signature covers', async () => {
    const index = `cxm-signing-${Date.now()}`;
    const doc = JSON.stringify({ note: 'a b/+é*' });
    expect((await send('PUT', `/${index}/_doc/a%20b?refresh=true`, doc, {})).status).toBe(201);
    const found = await send('GET', `/${index}/_doc/a%20b?_source_includes=note`, undefined, {});
    expect(JSON.parse(found.text)).toMatchObject({ found: true, _source: { note: 'a b/+é*' } });
    expect((await send('DELETE', `/${index}`, undefined, {})).status).toBe(200);
  });
});

describe('the run engine, reached any other way', () => {
  const attempts: Array<[string, Signing | 'unsigned', Parameters<typeof send>[4]?]> = [
    ['unsigned', 'unsigned'],
    ['signed by another key', { credentials: newLocalCredentials() }],
    ['with its key id and a wrong secret', { credentials: { ...engine.credentials, secretAccessKey: 'guessed' } }],
    ['signed for another region', { region: 'eu-west-1' }],
    ['signed for another service', { service: 's3' }],
    ['signed 20 minutes ago (a replay)', { signingDate: new Date(Date.now() - 20 * 60_000) }],
    ['with its body changed after signing', {}, (r) => ({ ...r, body: r.body?.replace('first', 'other') })],
    ['with its query changed after signing', {}, (r) => ({ ...r, path: `${r.path}&routing=another-tenant` })],
  ];

  it.each(attempts)('%s: 403, and nothing written', async (_name, signing, tamper) => {
    const index = `cxm-refused-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const answer = await send('PUT', `/${index}/_doc/1?refresh=true`, '{"first":1}', signing, tamper);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toEqual({ message: expect.any(String) });
    expect(await indexExists(index)).toBe(false);
  });

  it('refuses unsigned requests to any path, known or not, before the engine reads them', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/_cat/indices'],
      ['GET', '/_cluster/settings'],
      ['POST', '/_bulk'],
      ['GET', '/no/such/path'],
      ['DELETE', '/*'],
    ] as const) {
      const answer = await send(method, path, undefined, 'unsigned');
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
  });

  it('closes whatever connects to its node transport, which a single node never needs', async () => {
    const { body } = await engine.client.request({
      method: 'GET',
      path: '/_nodes/_local/transport',
      query: { filter_path: 'nodes.*.transport.publish_address' },
    });
    const nodes = (body as { nodes: Record<string, { transport: { publish_address: string } }> }).nodes;
    const [address] = Object.values(nodes).map((node) => node.transport.publish_address);
    const socket = connect({ host: '127.0.0.1', port: Number(address!.split(':').at(-1)) });
    socket.on('error', () => undefined);
    socket.write('not a node');
    await once(socket, 'close');
  });

  it('listens on 127.0.0.1 only', async () => {
    const outside = Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry && entry.family === 'IPv4' && !entry.internal)
      .map((entry) => entry!.address);
    for (const address of outside) {
      await expect(fetch(`http://${address}:${url.port}/`)).rejects.toThrow();
    }
  });
});

describe('a local engine with a data folder, started by a process that is killed outright', () => {
  const home = mkdtempSync(join(tmpdir(), 'cxm-opensearch-lifetime-'));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  /** A process that starts an engine over `dataDir`, prints its pid and endpoint, and waits. */
  async function startParent(dataDir: string, credentials: LocalCredentials) {
    const module = pathToFileURL(join(PROJECT_ROOT, 'infra/local/opensearch/local-opensearch.ts')).href;
    const script = `
      const { startLocalOpenSearch } = await import(${JSON.stringify(module)});
      const engine = await startLocalOpenSearch({
        dataDir: process.env.ENGINE_DIR,
        credentials: JSON.parse(process.env.ENGINE_KEY),
        region: 'us-east-1',
      });
      console.log(JSON.stringify({ pid: engine.pid, endpoint: engine.endpoint }));
      setInterval(() => {}, 60_000);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ENGINE_DIR: dataDir, ENGINE_KEY: JSON.stringify(credentials) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(parent);
    let output = '';
    parent.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [line] = (await Promise.race([
      once(parent.stdout!, 'data'),
      once(parent, 'exit').then(() => {
        throw new Error(`the parent exited before its engine answered: ${output}`);
      }),
    ])) as [Buffer];
    return { parent, ...(JSON.parse(line.toString()) as { pid: number; endpoint: string }) };
  }

  const running = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it.runIf(process.platform === 'linux')(
    'ends with it, and the next start over its data folder finds what it held',
    async () => {
      const dataDir = join(home, 'opensearch');
      const credentials = newLocalCredentials();
      const { parent, pid, endpoint } = await startParent(dataDir, credentials);
      const client = createOpenSearchClient({ endpoint, region: 'us-east-1', credentials: async () => credentials });
      await client.request({ method: 'PUT', path: '/kept/_doc/1', query: { refresh: 'true' }, body: { note: 'kept' } });

      parent.kill('SIGKILL');
      await once(parent, 'exit');
      for (let waited = 0; waited < 30_000 && running(pid); waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(running(pid), 'the JVM outlived the process that started it').toBe(false);

      const next = await startLocalOpenSearch({ dataDir, credentials, region: 'us-east-1' });
      try {
        const { body } = await next.client.request({ method: 'GET', path: '/kept/_doc/1' });
        expect(body).toMatchObject({ found: true, _source: { note: 'kept' } });
      } finally {
        await next.stop();
      }
    },
  );
});
