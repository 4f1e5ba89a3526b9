/**
 * SHA-256 for the AWS SDK (a client's `sha256` setting, which its SigV4 signer and its payload
 * hashes use), as the SDK's own Node class computes it but with HMAC keys as KeyObjects
 * (shared/domain/hmac-sha256.ts): the SDK's own hands `createHmac` a buffer, which on Node 24 costs
 * a thrown and caught error inside Node for every request it signs.
 */
import { createHash, type Hash, type Hmac, type KeyObject } from 'node:crypto';
import type { Checksum, SourceData } from '@smithy/types';
import { hmacKey, hmacSha256 } from '#shared/domain/hmac-sha256';

/**
 * The KeyObject of each byte key already met: the signer derives its signing key once a day per
 * region and service and hands the same array to every request's signature. The SDK never writes
 * to a key it has derived, so the object stands for its bytes.
 */
const keyObjects = new WeakMap<object, KeyObject>();

/** `data`'s bytes, without a copy. */
function bytesOf(data: ArrayBuffer | ArrayBufferView): Uint8Array {
  return ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
}

function keyOf(secret: SourceData): KeyObject {
  if (typeof secret === 'string') return hmacKey(secret);
  let key = keyObjects.get(secret);
  if (!key) {
    key = hmacKey(bytesOf(secret));
    keyObjects.set(secret, key);
  }
  return key;
}

/**
 * A SHA-256, or with a secret an HMAC-SHA256, as the SDK's `Checksum`.
 *
 * @example new SignatureV4({ service: 'es', region, credentials, sha256: Sha256 })
 */
export class Sha256 implements Checksum {
  readonly digestLength = 32;
  readonly #key: KeyObject | undefined;
  #hash: Hash | Hmac;
  #finished = false;

  constructor(secret?: SourceData) {
    // As the SDK's: an empty string is no secret.
    this.#key = secret ? keyOf(secret) : undefined;
    this.#hash = this.#create();
  }

  update(data: SourceData, encoding?: 'utf8' | 'ascii' | 'latin1'): void {
    if (this.#finished) throw new Error('Attempted to update an already finished hash.');
    if (typeof data === 'string') this.#hash.update(data, encoding ?? 'utf8');
    else this.#hash.update(bytesOf(data));
  }

  async digest(): Promise<Uint8Array> {
    // As the SDK's: an HMAC ends with its digest; a plain hash digests a copy and may go on.
    let digest: Buffer;
    if (this.#key) {
      this.#finished = true;
      digest = this.#hash.digest();
    } else digest = (this.#hash as Hash).copy().digest();
    return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
  }

  reset(): void {
    this.#hash = this.#create();
    this.#finished = false;
  }

  #create(): Hash | Hmac {
    return this.#key ? hmacSha256(this.#key) : createHash('sha256');
  }
}
