/**
 * The recordings bucket as the processor reads it: what arrived, as a stream. The endpoint comes
 * from the standard `AWS_ENDPOINT_URL_S3` (the local S3 server), which also asks for path-style
 * addressing (a bucket name is no host name on 127.0.0.1). Uploads are presigned without the
 * client (presign-recording-upload.ts).
 */

import type { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SDK_CLIENT_OPTIONS } from './sdk-client-options.ts';

let client: S3Client | undefined;

export function s3Client(): S3Client {
  client ??= new S3Client({
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
    ...SDK_CLIENT_OPTIONS,
    // Recent SDKs otherwise compute and check checksums on requests that do not need them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return client;
}

export interface RecordingObject {
  size: number;
  body: Readable;
}

/** The object at a key is no longer the one an event named (its ETag differs). */
export class ObjectChangedError extends Error {
  override readonly name = 'ObjectChangedError';
}

export interface RecordingsBucket {
  /**
   * The object's bytes as a stream (the caller reads what it needs, then destroys it); with
   * `etag`, only if the object still has that ETag (S3's If-Match), else ObjectChangedError.
   */
  open(
    key: string,
    options?: { etag?: string | undefined; signal?: AbortSignal },
  ): Promise<RecordingObject | undefined>;
}

export function createRecordingsBucket(s3: S3Client, bucket: string): RecordingsBucket {
  return {
    async open(key, { etag, signal } = {}) {
      try {
        const out = await s3.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, ...(etag && { IfMatch: `"${etag}"` }) }),
          { abortSignal: signal },
        );
        return { size: out.ContentLength ?? 0, body: out.Body as Readable };
      } catch (error) {
        if (error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound')) return undefined;
        if (error instanceof Error && error.name === 'PreconditionFailed')
          throw new ObjectChangedError(`${key} is not the object of ETag ${etag}`, { cause: error });
        throw error;
      }
    },
  };
}
