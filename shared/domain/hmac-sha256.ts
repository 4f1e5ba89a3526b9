/**
 * HMAC-SHA256 with the key handed to Node as a KeyObject. Given a string or a buffer, Node 24's
 * `createHmac` first asks whether the key is a KeyObject by catching the error its brand check
 * throws (`isKeyObject`), which costs several times the MAC of a short message; `createSecretKey`
 * takes the bytes without asking, and `createHmac` knows a KeyObject without a throw. Every MAC of
 * ours goes through here, and the AWS SDK signs through shared/store/sdk-sha256.ts.
 */
import { createHmac, createSecretKey, type Hmac, KeyObject } from 'node:crypto';

/**
 * The key as a KeyObject (a string as its UTF-8 bytes, as `createHmac` takes it).
 *
 * @example createHmac('sha256', hmacKey(signingKey)) // no thrown error inside Node
 */
export function hmacKey(key: string | Uint8Array): KeyObject {
  return createSecretKey(typeof key === 'string' ? Buffer.from(key, 'utf8') : key);
}

/**
 * An HMAC-SHA256 under `key`, as `createHmac('sha256', key)` would make it; a key used again and
 * again is best made a KeyObject once (`hmacKey`).
 *
 * @example hmacSha256('the stage secret').update(body, 'utf8').digest() // 32 bytes
 */
export function hmacSha256(key: string | Uint8Array | KeyObject): Hmac {
  return createHmac('sha256', key instanceof KeyObject ? key : hmacKey(key));
}
