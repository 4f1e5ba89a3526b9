/**
 * One delivery attempt against receivers on this machine (the local stage's rules allow loopback),
 * each verifying what it got with the specification's reference library; and, under a stage's
 * rules, the targets refused before or while connecting (a name rebound to an internal address).
 */
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { webhookHeaders } from '#shared/domain/webhooks/sign-webhook';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import { checkWebhookTarget, dnsResolve, postWebhook } from '#shared/webhooks/post-webhook';

const secret = newWebhookSecret();
const body = JSON.stringify({ type: 'note.created', timestamp: '2026-11-27T02:00:00.000Z', data: { noteId: 'n-1' } });
const signed = () => webhookHeaders({ id: 'msg_1', body }, [secret], new Date());

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver on 127.0.0.1 answering with `answer`; what it received is in `received`. */
async function receiver(answer: (response: ServerResponse) => void) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}/hooks`, port: address.port, received };
}

describe('postWebhook, locally', () => {
  it('a 2xx is delivered, and the receiver verifies the signed body with the reference library', async () => {
    const target = await receiver((response) => response.writeHead(204).end());
    const outcome = await postWebhook(target.url, 'local', signed(), body);
    expect(outcome).toEqual({ kind: 'delivered', status: 204 });
    const [got] = target.received;
    expect(got!.headers['content-type']).toBe('application/json');
    const verified = new Webhook(secret).verify(got!.body, {
      'webhook-id': String(got!.headers['webhook-id']),
      'webhook-timestamp': String(got!.headers['webhook-timestamp']),
      'webhook-signature': String(got!.headers['webhook-signature']),
    });
    expect(verified).toEqual(JSON.parse(body));
  });

  it('a 500 fails with its status and Retry-After; a 410 is gone', async () => {
    const failing = await receiver((response) => response.writeHead(500, { 'Retry-After': '30' }).end('no'));
    expect(await postWebhook(failing.url, 'local', signed(), body)).toEqual({
      kind: 'failed',
      reason: 'HTTP 500',
      status: 500,
      retryAfterMs: 30_000,
    });
    const gone = await receiver((response) => response.writeHead(410).end());
    expect(await postWebhook(gone.url, 'local', signed(), body)).toEqual({ kind: 'gone' });
  });

  it('a redirect is not followed: the attempt fails and its target receives nothing', async () => {
    const elsewhere = await receiver((response) => response.writeHead(204).end());
    const redirecting = await receiver((response) => response.writeHead(307, { Location: elsewhere.url }).end());
    expect(await postWebhook(redirecting.url, 'local', signed(), body)).toMatchObject({
      kind: 'failed',
      status: 307,
      reason: 'HTTP 307 (redirects are not followed)',
    });
    expect(elsewhere.received).toEqual([]);
  });

  it('a receiver that does not answer in time, or a closed port, fails with a coarse kind, not the network detail', async () => {
    const silent = await receiver(() => undefined);
    expect(await postWebhook(silent.url, 'local', signed(), body, { timeoutMs: 300 })).toEqual({
      kind: 'failed',
      reason: 'timed out: no answer within 0.3 s',
    });
    const closed = await receiver((response) => response.end());
    servers.pop()?.close();
    expect(await postWebhook(closed.url, 'local', signed(), body)).toEqual({
      kind: 'failed',
      reason: 'could not connect',
    });
  });

  it('a connection not made (TLS included) within its own time fails before the attempt does', async () => {
    // Accepts TCP, never speaks TLS: the secure connection never comes.
    const mute = createNetServer(() => undefined);
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const { port } = mute.address() as AddressInfo;
    try {
      expect(
        await postWebhook(`https://127.0.0.1:${port}/hooks`, 'local', signed(), body, {
          connectTimeoutMs: 200,
          timeoutMs: 30_000,
        }),
      ).toEqual({ kind: 'failed', reason: 'timed out: no connection within 0.2 s' });
    } finally {
      mute.close();
    }
  });

  it('a receiver that takes the request and does not begin to answer fails within its own time, before the attempt does', async () => {
    const silent = await receiver(() => undefined);
    expect(
      await postWebhook(silent.url, 'local', signed(), body, { firstByteTimeoutMs: 200, timeoutMs: 30_000 }),
    ).toEqual({ kind: 'failed', reason: 'timed out: no answer within 0.2 s of the request' });
    expect(silent.received).toHaveLength(1);
  });

  it("the API's own host is refused at the attempt too, and receives nothing", async () => {
    const own = await receiver((response) => response.writeHead(204).end());
    expect(await postWebhook(own.url, 'local', signed(), body, { ownHosts: [`127.0.0.1:${own.port}`] })).toEqual({
      kind: 'failed',
      reason: `refused: 127.0.0.1:${own.port} is this API's own host: give a receiver of yours`,
    });
    expect(own.received).toEqual([]);
  });

  it("a local stage's localhost is connected to on its loopback addresses only", async () => {
    const outcome = await postWebhook('http://localhost:9/hooks', 'local', signed(), body, {
      resolve: (_name, done) => done(null, [{ address: '192.168.1.20', family: 4 }]),
    });
    expect(outcome).toEqual({ kind: 'failed', reason: 'refused: localhost resolves to no public address' });
  });

  it('localhost resolves to this machine, which a local stage allows', async () => {
    const target = await receiver((response) => response.writeHead(200).end());
    const outcome = await postWebhook(`http://localhost:${target.port}/hooks`, 'local', signed(), body, {
      resolve: (_name, done) => done(null, [{ address: '127.0.0.1', family: 4 }]),
    });
    expect(outcome).toEqual({ kind: 'delivered', status: 200 });
  });
});

describe("postWebhook under a stage's rules", () => {
  it('refuses a loopback URL before connecting', async () => {
    const target = await receiver((response) => response.writeHead(204).end());
    expect(await postWebhook(target.url, 'stage', signed(), body)).toEqual({
      kind: 'failed',
      reason: 'refused: a webhook URL is https',
    });
    expect(target.received).toEqual([]);
  });

  it.each([[['10.0.0.5']], [['169.254.169.254']], [['127.0.0.1', '::1']], [['fd00:ec2::254']]])(
    'refuses a public name that resolves to %j at the attempt (rebinding), connecting to none',
    async (addresses) => {
      const looked: string[] = [];
      const outcome = await postWebhook('https://hooks.example.com/cxm', 'stage', signed(), body, {
        resolve: (name, done) => {
          looked.push(name);
          done(
            null,
            addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
          );
        },
      });
      expect(looked).toEqual(['hooks.example.com']);
      expect(outcome).toEqual({
        kind: 'failed',
        // The addresses themselves are not told: they would map the service's own network.
        reason: 'refused: hooks.example.com resolves to no public address',
      });
    },
  );
});

describe('checkWebhookTarget: what registration refuses, the name resolved as each attempt resolves it', () => {
  const resolvingTo =
    (...addresses: string[]): NonNullable<Parameters<typeof checkWebhookTarget>[2]>['resolve'] =>
    (_name, done) =>
      done(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );

  it('takes a public name that resolves to a public address', async () => {
    const checked = await checkWebhookTarget('https://hooks.example.com/cxm', 'stage', {
      resolve: resolvingTo('93.184.215.14'),
    });
    expect(checked.ok).toBe(true);
  });

  it.each([['10.1.2.3'], ['169.254.169.254'], ['fd00:ec2::254'], ['127.0.0.1', '::1']])(
    'refuses a name that resolves to %s only, without naming the addresses',
    async (...addresses) => {
      const checked = await checkWebhookTarget('https://hooks.example.com/cxm', 'stage', {
        resolve: resolvingTo(...addresses),
      });
      expect(checked).toEqual({ ok: false, reason: 'hooks.example.com resolves to no public address' });
    },
  );

  it('refuses a name that does not resolve, saying so', async () => {
    const checked = await checkWebhookTarget('https://nowhere.example.com/', 'stage', {
      resolve: (_name, done) => done(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []),
    });
    expect(checked).toEqual({
      ok: false,
      reason: 'nowhere.example.com does not resolve: register a host name that does',
    });
  });

  it('judges an address literal by the URL rules alone, resolving nothing', async () => {
    const resolve = () => {
      throw new Error('resolved an address literal');
    };
    expect((await checkWebhookTarget('https://93.184.215.14/', 'stage', { resolve })).ok).toBe(true);
    expect(await checkWebhookTarget('https://[fd00::1]/', 'stage', { resolve })).toEqual({
      ok: false,
      reason: '[fd00::1] is not a public address',
    });
  });

  it("a local stage's localhost must resolve to loopback", async () => {
    expect((await checkWebhookTarget('http://localhost:9/', 'local', { resolve: resolvingTo('127.0.0.1') })).ok).toBe(
      true,
    );
    expect(await checkWebhookTarget('http://localhost:9/', 'local', { resolve: resolvingTo('10.0.0.1') })).toEqual({
      ok: false,
      reason: 'localhost resolves to no public address',
    });
  });
});

describe('resolution by DNS, with a timeout, off the shared thread pool', () => {
  it('names at a nameserver that never answers time out, holding none of the threads dns.lookup and the file system share', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    const resolve = dnsResolve([`127.0.0.1:${silent.address().port}`], { tryMs: 500, tries: 1 });
    const order: string[] = [];
    try {
      // More than libuv's four threads: were they on the pool, the lookup below would wait for them.
      const attempts = Array.from({ length: 6 }, (_, i) =>
        postWebhook(`https://hooks-${i}.example.com/cxm`, 'stage', signed(), body, { resolve }).then((outcome) => {
          order.push('attempt');
          return outcome;
        }),
      );
      await new Promise<void>((done) => lookup('localhost', () => done()));
      order.push('pool');
      for (const outcome of await Promise.all(attempts))
        expect(outcome).toEqual({ kind: 'failed', reason: 'timed out: the host name did not resolve in time' });
      expect(order[0]).toBe('pool');
    } finally {
      silent.close();
    }
  });

  it('localhost is loopback without asking any nameserver', async () => {
    const addresses = await new Promise((done) => dnsResolve(['127.0.0.1:9'])('localhost', (_e, found) => done(found)));
    expect(addresses).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
  });
});
