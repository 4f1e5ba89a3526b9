/**
 * The recordings bucket: presigned uploads and reads of what arrived. The endpoint comes from the
 * standard `AWS_ENDPOINT_URL_S3` (the local S3 server), which also asks for path-style addressing
 * (a bucket name is no host name on 127.0.0.1).
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';

let client: S3Client | undefined;

export function s3Client(): S3Client {
  client ??= new S3Client({
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
    // Recent SDKs otherwise sign a CRC32 of an empty body into presigned PUT URLs, and S3 then
    // refuses every real upload (the known pitfall).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return client;
}

export interface PresignedUpload {
  method: 'PUT';
  url: string;
  headers: { 'Content-Type': string; 'Content-Length': string };
  expiresAt: string;
}

export interface RecordingObject {
  size: number;
  body: Readable;
}

export interface RecordingsBucket {
  /**
   * A PUT URL for exactly this key, type and size: Content-Type and Content-Length are signed, so S3
   * refuses (403) a file of another type or size, as it refuses the URL after `ttlSeconds`.
   */
  presignUpload(key: string, contentType: string, sizeBytes: number, ttlSeconds: number, now: Date): Promise<PresignedUpload>;
  /** The object's bytes as a stream (the caller reads what it needs, then destroys it). */
  open(key: string, signal?: AbortSignal): Promise<RecordingObject | undefined>;
}

export function createRecordingsBucket(s3: S3Client, bucket: string): RecordingsBucket {
  return {
    async presignUpload(key, contentType, sizeBytes, ttlSeconds, now) {
      const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: contentType, ContentLength: sizeBytes }), {
        expiresIn: ttlSeconds,
        signingDate: now,
        signableHeaders: new Set(['content-type', 'content-length']),
      });
      return {
        method: 'PUT',
        url,
        headers: { 'Content-Type': contentType, 'Content-Length': String(sizeBytes) },
        expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
      };
    },

    async open(key, signal) {
      try {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
        return { size: out.ContentLength ?? 0, body: out.Body as Readable };
      } catch (error) {
        if (error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound')) return undefined;
        throw error;
      }
    },
  };
}
