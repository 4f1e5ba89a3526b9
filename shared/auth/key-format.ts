/**
 * Tenant API keys: `cxm_<keyId>_<secret>_<tag>`, keyId 12 characters [a-z0-9], secret 40
 * characters base62 (~238 bits), tag 8 characters base62 (key-tag.ts: an HMAC of the rest under
 * the stage's key-tag secret). The fixed `cxm_` prefix and the fixed shape are what secret scanners
 * (GitHub's and the like) match a leaked key by. Keys issued before tags are `cxm_<keyId>_<secret>`;
 * the authorizer accepts them while the stage allows untagged keys. Only the SHA-256 of the whole
 * key is ever stored.
 */
import { createHash, randomInt } from 'node:crypto';
import { BASE62_ALPHABET } from './base62.ts';
import { KEY_TAG_LENGTH, keyTag } from './key-tag.ts';

const KEY_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const KEY_ID_LENGTH = 12;
const SECRET_LENGTH = 40;
const BODY_SOURCE = `cxm_[a-z0-9]{${KEY_ID_LENGTH}}_[A-Za-z0-9]{${SECRET_LENGTH}}`;
const TAG_SOURCE = `[A-Za-z0-9]{${KEY_TAG_LENGTH}}`;
const KEY_PATTERN = new RegExp(
  `^(cxm_([a-z0-9]{${KEY_ID_LENGTH}})_[A-Za-z0-9]{${SECRET_LENGTH}})(?:_(${TAG_SOURCE}))?$`,
);

export interface GeneratedKey {
  keyId: string;
  key: string;
  keyHash: string;
}

/** A well-formed token taken apart: the part its tag covers, and the tag (undefined: a key issued before tags). */
export interface ParsedKey {
  keyId: string;
  body: string;
  tag: string | undefined;
}

function randomString(alphabet: string, length: number): string {
  let out = '';
  // randomInt draws without modulo bias, unlike `byte % alphabet.length`.
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/**
 * A new key, tagged under `tagSecret` (the stage's current key-tag secret).
 *
 * @example
 * const { keyId, key, keyHash } = generateKey(tagSecret);
 * // key: 'cxm_k1abcdefghij_<40 base62>_<8 base62>'; keyHash: its SHA-256, the only thing stored
 */
export function generateKey(tagSecret: string): GeneratedKey {
  const keyId = randomString(KEY_ID_ALPHABET, KEY_ID_LENGTH);
  const body = `cxm_${keyId}_${randomString(BASE62_ALPHABET, SECRET_LENGTH)}`;
  const key = `${body}_${keyTag(tagSecret, body)}`;
  return { keyId, key, keyHash: hashKey(key) };
}

/**
 * A well-formed token's parts, or undefined: a malformed token never reaches the tag check or the store.
 *
 * @example
 * parseKey(key); // { keyId: 'k1abcdefghij', body: 'cxm_k1abcdefghij_...', tag: 'q3ZtC0aL' }
 * parseKey('cxm_k1abcdefghij_' + 'A'.repeat(40)); // { ..., tag: undefined }: issued before tags
 * parseKey('not-a-key'); // undefined
 */
export function parseKey(token: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(token);
  if (!match) return undefined;
  return { body: match[1]!, keyId: match[2]!, tag: match[3] };
}

/**
 * The key format as regular-expression source without groups (WAF's regular expressions take none),
 * in lower case, for matching a lower-cased `Authorization` header: a tagged key, or an untagged one.
 *
 * @example
 * new RegExp(`^bearer[ \\t]+${keyFormatSource('tagged')}[ \\t]*$`).test(header.toLowerCase());
 */
export function keyFormatSource(form: 'tagged' | 'untagged'): string {
  const source = form === 'tagged' ? `${BODY_SOURCE}_${TAG_SOURCE}` : BODY_SOURCE;
  return source.replaceAll('A-Za-z0-9', 'a-z0-9');
}

/**
 * The SHA-256 of a whole key, hex encoded: what the keys table is keyed by.
 *
 * @example
 * hashKey('abc'); // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
