/**
 * The SDK's SHA-256 with KeyObject keys computes what the SDK's own class computes, hash and HMAC
 * alike, over every kind of input the SDK hands it, and a request signed with it carries the same
 * signature.
 */
import { Sha256 as SdkSha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Checksum, SourceData } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { Sha256 } from '#shared/store/sdk-sha256';

const hex = async (checksum: Checksum) => Buffer.from(await checksum.digest()).toString('hex');

async function both(secret: SourceData | undefined, chunks: readonly SourceData[]): Promise<[string, string]> {
  const ours = new Sha256(secret);
  const sdk = new SdkSha256(secret);
  for (const chunk of chunks) {
    ours.update(chunk as Uint8Array);
    sdk.update(chunk as Uint8Array);
  }
  return [await hex(ours), await hex(sdk)];
}

describe('Sha256 for the SDK', () => {
  const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
  const view = new Uint8Array(new Uint8Array([9, 9, 7, 8, 9, 9]).buffer, 2, 2);

  it('hashes as the SDK does: strings, bytes, a view inside a larger buffer', async () => {
    for (const chunks of [[], ['héllo'], [bytes], [view], ['a', bytes, view]] as SourceData[][]) {
      const [ours, sdk] = await both(undefined, chunks);
      expect(ours).toBe(sdk);
    }
  });

  it('is an HMAC under a string, byte, view or ArrayBuffer secret, as the SDK computes it', async () => {
    for (const secret of ['the secret', bytes, view, bytes.buffer] as SourceData[]) {
      const [ours, sdk] = await both(secret, ['message', bytes]);
      expect(ours).toBe(sdk);
    }
  });

  it('keeps a plain hash open after a digest and ends an HMAC with it, then starts again on reset', async () => {
    const hash = new Sha256();
    hash.update(bytes);
    const first = await hex(hash);
    hash.update(bytes);
    expect(await hex(hash)).not.toBe(first);

    const mac = new Sha256('k');
    mac.update(bytes);
    const tag = await hex(mac);
    expect(() => mac.update(bytes)).toThrow(/already finished/);
    mac.reset();
    mac.update(bytes);
    expect(await hex(mac)).toBe(tag);
  });

  it('gives the same MAC each time a byte key is met again (its KeyObject is kept)', async () => {
    const key = new Uint8Array(32).fill(7);
    const [first, sdk] = await both(key, ['one']);
    const [again] = await both(key, ['one']);
    expect([first, again]).toEqual([sdk, sdk]);
  });

  it("signs a request as the SDK's own signer does", async () => {
    const request = {
      method: 'POST',
      protocol: 'https:',
      hostname: 'dynamodb.eu-west-1.amazonaws.com',
      path: '/',
      headers: { host: 'dynamodb.eu-west-1.amazonaws.com', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
      body: '{"TableName":"t"}',
    };
    const sign = (sha256: typeof Sha256 | typeof SdkSha256) =>
      new SignatureV4({
        service: 'dynamodb',
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
        sha256,
      }).sign(request, { signingDate: new Date('2026-11-29T12:00:00Z') });
    const [ours, sdk] = await Promise.all([sign(Sha256), sign(SdkSha256)]);
    expect(ours.headers.authorization).toBe(sdk.headers.authorization);
    expect(ours.headers.authorization).toMatch(/Signature=[0-9a-f]{64}$/);
  });
});
