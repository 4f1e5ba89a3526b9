/**
 * The local OpenSearch engine (infra/local/emulators/opensearch): loopback is not a secret. Only a request
 * signed with SigV4 (service `es`, the local region) under the one key it was started with reaches
 * the engine; anything else, whatever its path, is 403 and changes nothing. It listens on 127.0.0.1
 * only and its node transport takes no connection. That it dies with the process that started it,
 * leaving its data folder whole for the next start, is test/integration/reporting-outage.test.ts's.
 */
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { type LocalCredentials, newLocalCredentials } from '#infra/local/emulators/local-identity';
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
  const sending = tamper({ path, body });
  // Raw HTTP: fetch would resolve dot segments, and refuses a GET with a body, before sending.
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: Number(url.port),
        method,
        path: sending.path,
        headers: {
          ...headers,
          ...(sending.body !== undefined && { 'content-length': String(Buffer.byteLength(sending.body)) }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.end(sending.body);
  });
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
    // The SDK signs `/x/../cxm-refused-1` as `/cxm-refused-1`; the engine would route it elsewhere.
    ['with its path written otherwise after signing', {}, (r) => ({ ...r, path: r.path.replace(/^\//, '/x/../') })],
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
