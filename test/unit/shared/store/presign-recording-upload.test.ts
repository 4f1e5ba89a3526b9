/**
 * The recording upload URL, signed without the S3 client (shared/store/presign-recording-upload.ts),
 * against the SDK's own presigning for the same inputs: the same host and path as `getSignedUrl`
 * resolves for the bucket, and the same signed query as the SDK's S3 presigner gives that request.
 * The local S3 server checks these signatures end to end (test/integration/voc-recordings.test.ts).
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl, S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { Sha256 } from '@smithy/core/checksum';
import { describe, expect, it, vi } from 'vitest';
import { createUploadPresigner } from '#shared/store/presign-recording-upload';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'IQoJb3JpZ2luX2VjE+/token=',
};
const now = new Date('2026-11-25T10:00:00Z');
const key = 'recordings/acme.eu/01JDXYZ0000000000000000000.mp3';
const upload = [key, 'audio/mpeg', 2_400_000, 900, now] as const;

async function sdkUrl(bucket: string, region: string): Promise<URL> {
  const client = new S3Client({ region, credentials, requestChecksumCalculation: 'WHEN_REQUIRED' });
  return new URL(
    await getSignedUrl(
      client,
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        ContentType: 'audio/mpeg',
        ContentLength: 2_400_000,
        IfNoneMatch: '*',
      }),
      { expiresIn: 900, signingDate: now },
    ),
  );
}

async function sdkQuery(url: URL, region: string): Promise<Record<string, string>> {
  const presigner = new S3RequestPresigner({ region, credentials, sha256: Sha256 });
  const signed = await presigner.presign(
    {
      method: 'PUT',
      protocol: url.protocol,
      hostname: url.hostname,
      path: url.pathname,
      query: {},
      headers: { host: url.host, 'content-type': 'audio/mpeg', 'content-length': '2400000', 'if-none-match': '*' },
    },
    { expiresIn: 900, signingDate: now, signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']) },
  );
  return signed.query as Record<string, string>;
}

describe('a presigned recording upload', () => {
  it("goes to the bucket's regional virtual-hosted endpoint, as the SDK resolves it, signed as the SDK's presigner signs it", async () => {
    const ours = await createUploadPresigner({
      bucket: 'cxm-dev-recordings-1a2b3c',
      region: 'eu-west-1',
      endpoint: '',
      credentials: async () => credentials,
    }).presignUpload(...upload);
    const url = new URL(ours.url);
    const sdk = await sdkUrl('cxm-dev-recordings-1a2b3c', 'eu-west-1');
    expect(`${url.origin}${url.pathname}`).toBe(`${sdk.origin}${sdk.pathname}`);
    expect(Object.fromEntries(url.searchParams)).toEqual(await sdkQuery(url, 'eu-west-1'));
    // Write-once: the URL signs If-None-Match: *, so S3 refuses a second PUT to the key (412).
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host;if-none-match');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe(credentials.sessionToken);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(ours).toMatchObject({
      method: 'PUT',
      headers: { 'Content-Type': 'audio/mpeg', 'Content-Length': '2400000', 'If-None-Match': '*' },
      expiresAt: '2026-11-25T10:15:00.000Z',
    });
  });

  it("uses the partition's DNS suffix, as the SDK resolves it for a China region", async () => {
    const ours = await createUploadPresigner({
      bucket: 'cxm-cn-recordings',
      region: 'cn-north-1',
      endpoint: '',
      credentials: async () => credentials,
    }).presignUpload(...upload);
    const url = new URL(ours.url);
    const sdk = await sdkUrl('cxm-cn-recordings', 'cn-north-1');
    expect(`${url.origin}${url.pathname}`).toBe(`${sdk.origin}${sdk.pathname}`);
    expect(url.host).toBe('cxm-cn-recordings.s3.cn-north-1.amazonaws.com.cn');
  });

  it('refuses FIPS or dual-stack settings it does not build endpoints for, instead of signing for the wrong host', () => {
    vi.stubEnv('AWS_USE_FIPS_ENDPOINT', 'true');
    try {
      expect(() => createUploadPresigner({ bucket: 'b', region: 'us-east-1', endpoint: '' })).toThrow(
        /AWS_USE_FIPS_ENDPOINT/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('a bucket name with dots goes path-style, where the certificate matches', async () => {
    const ours = await createUploadPresigner({
      bucket: 'recordings.example.com',
      region: 'eu-west-1',
      endpoint: '',
      credentials: async () => credentials,
    }).presignUpload(...upload);
    const url = new URL(ours.url);
    expect(`${url.origin}${url.pathname}`).toBe(`https://s3.eu-west-1.amazonaws.com/recordings.example.com/${key}`);
    expect(Object.fromEntries(url.searchParams)).toEqual(await sdkQuery(url, 'eu-west-1'));
  });

  it('goes path-style to AWS_ENDPOINT_URL_S3 (the local S3 server), and escapes each key segment once', async () => {
    const odd = 'recordings/t 1/(a)*b.mp3';
    const ours = await createUploadPresigner({
      bucket: 'local-recordings',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:4569',
      credentials: async () => credentials,
    }).presignUpload(odd, 'audio/mpeg', 2_400_000, 900, now);
    const url = new URL(ours.url);
    expect(`${url.origin}${url.pathname}`).toBe(
      'http://127.0.0.1:4569/local-recordings/recordings/t%201/%28a%29%2Ab.mp3',
    );
    expect(Object.fromEntries(url.searchParams)).toEqual(await sdkQuery(url, 'us-east-1'));
  });

  it('refuses to start without a region', () => {
    expect(() => createUploadPresigner({ bucket: 'b', region: '', endpoint: '' })).toThrow(/AWS_REGION/);
  });
});
