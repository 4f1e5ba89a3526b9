/**
 * The SDK's own SigV4 signer (SignatureV4 with sdk-sha256.ts's SHA-256) for the requests we sign without a
 * service client: OpenSearch searches and bulks (service `es`), S3 upload URLs (service `s3`).
 * Credentials default to the standard provider chain, which caches what it resolves and refreshes
 * it before it expires (in Lambda, the function role's variables).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { Sha256 } from './sdk-sha256.ts';

export interface SigV4Options {
  service: 'es' | 's3';
  region: string;
  credentials?: AwsCredentialIdentityProvider;
}

export function sigV4Signer({ service, region, credentials }: SigV4Options): SignatureV4 {
  return new SignatureV4({
    service,
    region,
    credentials: credentials ?? (defaultProvider() as () => Promise<AwsCredentialIdentity>),
    sha256: Sha256,
    // S3 signs the path as sent, escaped once, not escaped again, and takes no checksum header of ours.
    ...(service === 's3' && { uriEscapePath: false, applyChecksum: false }),
  });
}

/** The region to sign for: the one given, else AWS_REGION; `what` names what could not be signed without one. */
export function signingRegion(what: string, region = process.env.AWS_REGION): string {
  if (!region) throw new Error(`cannot sign ${what}: AWS_REGION is not set`);
  return region;
}
