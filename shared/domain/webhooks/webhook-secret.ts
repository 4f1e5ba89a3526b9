/**
 * An endpoint's signing secret as Standard Webhooks 1.0 writes it: `whsec_` and the base64 of the
 * key. The specification allows keys of 24 to 64 bytes; a new one here has 32 (HMAC-SHA256's own
 * block of strength). Shown once, when an endpoint is made or its secret rotated.
 */
import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const NEW_KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A new secret of 32 random bytes.
 *
 * @example const secret = newWebhookSecret(); // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw...'
 */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(NEW_KEY_BYTES).toString('base64')}`;
}

/**
 * The key a secret names, or a RangeError saying what is wrong with it.
 *
 * @example const key = webhookKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw...'); // 32 bytes
 */
export function webhookKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new RangeError(`a webhook secret starts with ${PREFIX}`);
  const encoded = secret.slice(PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0)
    throw new RangeError('a webhook secret is whsec_ and the base64 of its key');
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES)
    throw new RangeError(`a webhook secret's key is ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes, not ${key.length}`);
  return key;
}
