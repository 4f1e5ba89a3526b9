/**
 * A webhook signing secret as the endpoints table keeps it: sealed to the stage's webhook secret
 * key (webhook-secret-box.ts), so that the table, its backups, its stream and every function that
 * reads endpoints without that key (the fan-out, the list, a PATCH) hold only ciphertext. The
 * endpoint it belongs to is authenticated with it (`tenant/endpoint` as additional data): a sealed
 * secret copied onto another endpoint does not open there. Its key is named in it, so a secret
 * sealed before a rotation of the key opens with the previous one.
 *
 * The stage secret's value gives an X25519 key pair. Sealing needs only the public key, so the
 * functions that make signing secrets (registration, rotation) never hold what opens them: each
 * seal is ECIES (an ephemeral X25519 key agreed with the stage's public key, HKDF-SHA256, then
 * AES-256-GCM). Text: `cxm2.<key id>.<ephemeral public key>.<iv>.<ciphertext>.<tag>`, base64url
 * parts. `cxm1.<key id>.<iv>.<ciphertext>.<tag>` is a seal under a key derived from the value
 * itself (AES-256-GCM), which still opens. A stored secret without a prefix is one kept before
 * secrets were sealed: it is used as it is, and sealed at its next rotation.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

const PREFIX = 'cxm1';
const PUBLIC_PREFIX = 'cxm2';
const IV_BYTES = 12;
const X25519_BYTES = 32;
/** DER of an X25519 PKCS#8 private key up to its 32 bytes (RFC 8410). */
const X25519_PKCS8_HEAD = Buffer.from('302e020100300506032b656e04220420', 'hex');
const PAIR_INFO = 'cxm webhook sealing key pair';
const SEAL_INFO = 'cxm webhook signing secret seal';

/** A sealing key: its id (named in what it seals) and the AES-256 key. */
export interface SealingKey {
  id: string;
  key: Buffer;
}

/** Where a secret belongs: what its seal authenticates. */
export interface SealContext {
  tenantId: string;
  endpointId: string;
}

/**
 * The sealing key a stage secret's value gives: its id is a digest of the value, the key derived
 * from it with HKDF-SHA256 (the value is a generated string, not 32 bytes of key).
 *
 * @example const key = sealingKey(process.env.CXM_WEBHOOK_SECRET_KEY!);
 */
export function sealingKey(value: string): SealingKey {
  return {
    id: createHash('sha256').update(value).digest('base64url').slice(0, 8),
    key: Buffer.from(hkdfSync('sha256', value, Buffer.alloc(0), 'cxm webhook signing secrets', 32)),
  };
}

const additionalData = ({ tenantId, endpointId }: SealContext) => Buffer.from(`${tenantId}/${endpointId}`, 'utf8');

/**
 * `secret` sealed under `key` for the endpoint of `context`.
 *
 * @example const stored = sealSecret(newWebhookSecret(), key, { tenantId, endpointId });
 */
export function sealSecret(secret: string, key: SealingKey, context: SealContext): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv).setAAD(additionalData(context));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [PREFIX, key.id, iv, sealed, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The public half of a stage's sealing key pair: all a function that only seals holds. */
export interface SealingPublicKey {
  id: string;
  /** The X25519 public key, its 32 bytes. */
  raw: Buffer;
  key: KeyObject;
}

/** A stage's sealing key pair: what opens the secrets sealed to its public key. */
export interface SealingKeyPair {
  publicKey: SealingPublicKey;
  privateKey: KeyObject;
}

const publicKeyOf = (raw: Buffer): SealingPublicKey => ({
  id: createHash('sha256').update(raw).digest('base64url').slice(0, 8),
  raw,
  key: createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: raw.toString('base64url') }, format: 'jwk' }),
});

/**
 * The key pair a stage secret's value gives: its private key derived from the value with
 * HKDF-SHA256, so the secret stays one generated string and a rotation of it rotates the pair.
 *
 * @example const pair = sealingKeyPair(process.env.CXM_WEBHOOK_SECRET_KEY!);
 */
export function sealingKeyPair(value: string): SealingKeyPair {
  const seed = Buffer.from(hkdfSync('sha256', value, Buffer.alloc(0), PAIR_INFO, X25519_BYTES));
  const privateKey = createPrivateKey({
    key: Buffer.concat([X25519_PKCS8_HEAD, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return { publicKey: publicKeyOf(Buffer.from(jwk.x!, 'base64url')), privateKey };
}

/**
 * The public key a function's configuration gives (`sealingPublicKeyText` of a value); throws, naming
 * `what`, when the text is not one.
 *
 * @example const publicKey = sealingPublicKey(process.env.CXM_WEBHOOK_SEALING_KEY!, 'CXM_WEBHOOK_SEALING_KEY');
 */
export function sealingPublicKey(text: string, what: string): SealingPublicKey {
  const raw = Buffer.from(text, 'base64url');
  if (raw.length !== X25519_BYTES || raw.toString('base64url') !== text)
    throw new Error(`${what} is not an X25519 public key (${X25519_BYTES} bytes, base64url)`);
  return publicKeyOf(raw);
}

/**
 * The text of the public key a stage secret's value gives, as a function's configuration carries it.
 *
 * @example environment.CXM_WEBHOOK_SEALING_KEY = sealingPublicKeyText(process.env.CXM_WEBHOOK_SECRET_KEY!);
 */
export function sealingPublicKeyText(value: string): string {
  return sealingKeyPair(value).publicKey.raw.toString('base64url');
}

const sealKey = (shared: Buffer, ephemeral: Buffer, recipient: Buffer) =>
  Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeral, recipient]), SEAL_INFO, 32));

/**
 * `secret` sealed to `publicKey` for the endpoint of `context`: only the private key opens it.
 *
 * @example const stored = sealSecretTo(newWebhookSecret(), publicKey, { tenantId, endpointId });
 */
export function sealSecretTo(secret: string, publicKey: SealingPublicKey, context: SealContext): string {
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralRaw = Buffer.from(ephemeral.publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: publicKey.key });
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealKey(shared, ephemeralRaw, publicKey.raw), iv).setAAD(
    additionalData(context),
  );
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [PUBLIC_PREFIX, publicKey.id, ephemeralRaw, iv, sealed, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/**
 * The secret `stored` holds (sealed by `sealSecretTo`), opened with `pair` (the one its id names);
 * throws when it was not sealed for `context` or was altered.
 *
 * @example const secret = openSecretWith(stored, pair, { tenantId, endpointId });
 */
export function openSecretWith(stored: string, pair: SealingKeyPair, context: SealContext): string {
  const [prefix, keyId, ephemeral, iv, sealed, tag] = stored.split('.');
  if (prefix !== PUBLIC_PREFIX || keyId !== pair.publicKey.id || !ephemeral || !iv || sealed === undefined || !tag)
    throw new Error('not a secret sealed to this key pair');
  const ephemeralRaw = Buffer.from(ephemeral, 'base64url');
  const shared = diffieHellman({ privateKey: pair.privateKey, publicKey: sealingPublicKey(ephemeral, 'a seal').key });
  const decipher = createDecipheriv(
    'aes-256-gcm',
    sealKey(shared, ephemeralRaw, pair.publicKey.raw),
    Buffer.from(iv, 'base64url'),
  )
    .setAAD(additionalData(context))
    .setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
}

/** Whether `stored` is sealed (rather than a secret kept before secrets were sealed). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(`${PREFIX}.`) || isSealedToPublicKey(stored);
}

/** Whether `stored` was sealed to a public key (`sealSecretTo`), not under a derived key. */
export function isSealedToPublicKey(stored: string): boolean {
  return stored.startsWith(`${PUBLIC_PREFIX}.`);
}

/** The id of the key `stored` was sealed under. */
export function sealedKeyId(stored: string): string | undefined {
  return isSealed(stored) ? stored.split('.')[1] : undefined;
}

/**
 * The secret `stored` holds, opened with `key` (the one its id names); throws when it was not
 * sealed for `context` or was altered.
 *
 * @example const secret = openSecret(stored, key, { tenantId, endpointId });
 */
export function openSecret(stored: string, key: SealingKey, context: SealContext): string {
  const [prefix, keyId, iv, sealed, tag] = stored.split('.');
  if (prefix !== PREFIX || keyId !== key.id || !iv || sealed === undefined || !tag)
    throw new Error('not a secret sealed under this key');
  const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'))
    .setAAD(additionalData(context))
    .setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
}
