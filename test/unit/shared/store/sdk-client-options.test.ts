/**
 * The stream collector every SDK client is given reads an answer's body as the SDK's own does,
 * fails where the body fails, and leaves Node's web streams unloaded, which is what it is for.
 */
import { spawnSync } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { streamCollector as sdkStreamCollector } from '@smithy/node-http-handler';
import { describe, expect, it } from 'vitest';
import { collectNodeStream } from '#shared/store/sdk-client-options';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('collectNodeStream', () => {
  it("reads a Node stream's chunks, bytes and strings, to its end, as the SDK's collector does", async () => {
    const chunks = () => [Buffer.from('{"Item":'), '{"id":"é"', Buffer.from([0x7d, 0x7d])];
    const ours = await collectNodeStream(Readable.from(chunks()));
    expect(text(ours)).toBe('{"Item":{"id":"é"}}');
    expect(ours).toBeInstanceOf(Uint8Array);
    expect(text(ours)).toBe(text(await sdkStreamCollector(Readable.from(chunks()))));
  });

  it('answers an empty body with no bytes', async () => {
    expect((await collectNodeStream(Readable.from([]))).byteLength).toBe(0);
  });

  it('rejects when the body fails midway', async () => {
    const body = new PassThrough();
    const collected = collectNodeStream(body);
    body.write('{"partial":');
    body.destroy(new Error('socket hang up'));
    await expect(collected).rejects.toThrow('socket hang up');
  });

  it('rejects when the body is closed before its end (a timeout that destroys it)', async () => {
    const body = new PassThrough();
    const collected = collectNodeStream(body);
    body.write('{"partial":');
    body.destroy();
    await expect(collected).rejects.toThrow(/premature close/i);
  });

  it("hands what is no Node stream to the SDK's collector", async () => {
    const web = new Blob(['from a blob']);
    expect(text(await collectNodeStream(web))).toBe('from a blob');
  });

  it('an SDK client given it reads an answer without a look at the web stream globals', () => {
    // A fresh process, in which the first look at `ReadableStream` would load Node's web streams;
    // the globals are watched once the SDK's modules have loaded (its CommonJS build looks at them
    // on load, where the bundles' tree-shaken code does not).
    const module = fileURLToPath(new URL('../../../../shared/store/sdk-client-options.ts', import.meta.url));
    const script = `
      const { createServer } = require('node:http');
      const { DynamoDBClient, GetItemCommand } = require('@aws-sdk/client-dynamodb');
      const { SDK_CLIENT_OPTIONS } = require(${JSON.stringify(module)});
      const looked = new Set();
      for (const name of ['ReadableStream', 'Blob']) {
        const value = globalThis[name];
        Object.defineProperty(globalThis, name, { configurable: true, get: () => (looked.add(name), value) });
      }
      const server = createServer((request, response) => {
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify({ Item: { pk: { S: 'answered' } } }));
      });
      server.listen(0, '127.0.0.1', async () => {
        const options = process.env.WITH_OPTIONS ? SDK_CLIENT_OPTIONS : {};
        const client = new DynamoDBClient({ ...options, region: 'eu-west-1', endpoint: 'http://127.0.0.1:' + server.address().port, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
        const { Item } = await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'x' } } }));
        process.stdout.write(Item.pk.S + ', looked at: ' + ([...looked].join(' ') || 'none'));
        client.destroy();
        server.close();
      });
    `;
    const answer = (environment: Record<string, string>) =>
      spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, ...environment },
      }).stdout;
    expect(answer({ WITH_OPTIONS: '1' })).toBe('answered, looked at: none');
    // The SDK's own collector does look: the check can fail.
    expect(answer({})).toBe('answered, looked at: Blob ReadableStream');
  });
});
