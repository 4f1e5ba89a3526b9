/**
 * A presigned PUT URL for one recording: SigV4 query signing as S3 expects it (service `s3`, the
 * path escaped once, `UNSIGNED-PAYLOAD`), done by the SDK's own SignatureV4. Content-Type and
 * Content-Length are signed, so S3 refuses (403) a file of another type or size, as it refuses the
 * URL after `ttlSeconds`. `If-None-Match: *` is signed too: the URL writes its key once, and S3
 * refuses a second PUT with 412 (a conditional write), so the file the processor probes is the only
 * one that key ever holds; the bucket's policy refuses any PUT to `recordings/` without it.
 *
 * Why not the S3 client's `getSignedUrl`: presigning is a signature over a URL, with no request to
 * S3, and the client and presigner are two thirds of what the upload function would otherwise load
 * at cold start (some 150 KB of bundle, 1.3-1.4x the baseline's import). The same signature: a test
 * compares the URL with the SDK presigner's for the same inputs.
 *
 * Where: the standard `AWS_ENDPOINT_URL_S3` (or `AWS_ENDPOINT_URL`) when set (the local S3
 * server), path-style; else the bucket's regional virtual-hosted endpoint in the region's partition,
 * or path-style for a bucket name with dots, which would not match S3's certificate as a host name.
 */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { escapeRfc3986 } from './escape-rfc3986.ts';
import { signingRegion, sigV4Signer } from './sigv4-signer.ts';

export interface PresignedUpload {
  method: 'PUT';
  url: string;
  headers: { 'Content-Type': string; 'Content-Length': string; 'If-None-Match': '*' };
  expiresAt: string;
}

export interface UploadPresigner {
  presignUpload(
    key: string,
    contentType: string,
    sizeBytes: number,
    ttlSeconds: number,
    now: Date,
  ): Promise<PresignedUpload>;
}

export interface UploadPresignerOptions {
  bucket: string;
  /** Defaults to AWS_REGION. */
  region?: string;
  /** Defaults to AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL; unset or empty means S3 itself. */
  endpoint?: string;
  /** Defaults to the standard provider chain (in Lambda, the function role's variables). */
  credentials?: AwsCredentialIdentityProvider;
}

/** S3's DNS suffix in the region's partition: the China regions have their own. */
function dnsSuffix(region: string): string {
  return region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
}

function bucketUrl(bucket: string, region: string, endpoint: string | undefined): { base: URL; prefix: string } {
  if (endpoint) return { base: new URL(endpoint), prefix: `/${bucket}` };
  const suffix = dnsSuffix(region);
  if (bucket.includes('.')) return { base: new URL(`https://s3.${region}.${suffix}`), prefix: `/${bucket}` };
  return { base: new URL(`https://${bucket}.s3.${region}.${suffix}`), prefix: '' };
}

/** FIPS and dual-stack endpoints are not built here: refused at cold start rather than signed for the wrong host. */
function refuseUnsupportedEndpoints(env: NodeJS.ProcessEnv): void {
  for (const name of ['AWS_USE_FIPS_ENDPOINT', 'AWS_USE_DUALSTACK_ENDPOINT']) {
    if (env[name]?.toLowerCase() === 'true')
      throw new Error(
        `${name}=true is not supported by the recording upload presigner: set AWS_ENDPOINT_URL_S3 to the endpoint to use`,
      );
  }
}

export function createUploadPresigner(options: UploadPresignerOptions): UploadPresigner {
  const region = signingRegion('recording upload URLs', options.region);
  const endpoint = options.endpoint ?? (process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL);
  if (!endpoint) refuseUnsupportedEndpoints(process.env);
  const { base, prefix } = bucketUrl(options.bucket, region, endpoint);
  const signer = sigV4Signer({
    service: 's3',
    region,
    ...(options.credentials && { credentials: options.credentials }),
  });
  const basePath = base.pathname.replace(/\/$/, '');

  return {
    async presignUpload(key, contentType, sizeBytes, ttlSeconds, now) {
      const path = `${basePath}${prefix}/${key.split('/').map(escapeRfc3986).join('/')}`;
      const signed = await signer.presign(
        {
          method: 'PUT',
          protocol: base.protocol,
          hostname: base.hostname,
          ...(base.port && { port: Number(base.port) }),
          path,
          query: {},
          headers: {
            host: base.host,
            'content-type': contentType,
            'content-length': String(sizeBytes),
            'if-none-match': '*',
            // The file's bytes are not known here: S3 takes the payload unsigned, the size signed.
            // Spelled as S3's own presigner spells it: hoisted into the query as it is, and signed so.
            'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD',
          },
        },
        {
          expiresIn: ttlSeconds,
          signingDate: now,
          signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']),
        },
      );
      const query = Object.entries(signed.query ?? {})
        .map(([name, value]) => `${escapeRfc3986(name)}=${escapeRfc3986(String(value))}`)
        .join('&');
      return {
        method: 'PUT',
        url: `${base.protocol}//${base.host}${path}?${query}`,
        headers: { 'Content-Type': contentType, 'Content-Length': String(sizeBytes), 'If-None-Match': '*' },
        expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
      };
    },
  };
}
