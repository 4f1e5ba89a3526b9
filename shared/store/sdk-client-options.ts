/**
 * What every AWS SDK client of ours is given in place of two of the SDK's Node defaults: each
 * computes what the SDK's own does, and costs less.
 *
 * - `sha256`: sdk-sha256.ts, HMAC keys as KeyObjects.
 * - `streamCollector`: an answer's body read from Node's own stream. The SDK's collector first
 *   asks whether the body is a `Blob` or a web `ReadableStream`, and the first mention of the
 *   `ReadableStream` global makes Node load its whole web streams implementation: CPU time on
 *   every function's first request, for a body that `NodeHttpHandler` always answers as a Node
 *   stream. Anything else (a web stream, a Blob) still goes to the SDK's collector.
 */
import { finished, Readable } from 'node:stream';
import { streamCollector as sdkStreamCollector } from '@smithy/node-http-handler';
import type { StreamCollector } from '@smithy/types';
import { Sha256 } from './sdk-sha256.ts';

/**
 * The bytes of an answer's body, read to its end; rejects if the stream fails or closes before
 * its end.
 *
 * @example const bytes = await collectNodeStream(response.body); // response of NodeHttpHandler
 */
export const collectNodeStream: StreamCollector = (stream: Parameters<typeof sdkStreamCollector>[0]) => {
  if (!(stream instanceof Readable)) return sdkStreamCollector(stream);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    finished(stream, { writable: false }, (error) => {
      if (error) return reject(error);
      const bytes = Buffer.concat(chunks);
      resolve(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    });
  });
};

/**
 * Spread into every SDK client's configuration.
 *
 * @example new DynamoDBClient({ ...SDK_CLIENT_OPTIONS })
 */
export const SDK_CLIENT_OPTIONS = { sha256: Sha256, streamCollector: collectNodeStream } as const;
