/**
 * Tenant API keys: `cxm_<keyId>_<secret>`, keyId 12 characters [a-z0-9], secret 40
 * characters base62 (~238 bits). Only the SHA-256 of the whole key is ever stored.
 */
import { createHash, randomInt } from 'node:crypto';

const KEY_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_PATTERN = /^cxm_([a-z0-9]{12})_[A-Za-z0-9]{40}$/;

export interface GeneratedKey {
  keyId: string;
  key: string;
  keyHash: string;
}

function randomString(alphabet: string, length: number): string {
  let out = '';
  // randomInt draws without modulo bias, unlike `byte % alphabet.length`.
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export function generateKey(): GeneratedKey {
  const keyId = randomString(KEY_ID_ALPHABET, 12);
  const key = `cxm_${keyId}_${randomString(SECRET_ALPHABET, 40)}`;
  return { keyId, key, keyHash: hashKey(key) };
}

/** The keyId of a well-formed key, or undefined: a malformed key never reaches the store. */
export function parseKeyId(key: string): string | undefined {
  return KEY_PATTERN.exec(key)?.[1];
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
