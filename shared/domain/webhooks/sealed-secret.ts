/**
 * A webhook signing secret as the endpoints table keeps it: sealed with AES-256-GCM under a key
 * of the stage (webhook-secret-box.ts reads it), so that the table, its backups, its stream and
 * every function that reads endpoints without that key (the fan-out, the list, a PATCH) hold only
 * ciphertext. The endpoint it belongs to is authenticated with it (`tenant/endpoint` as additional
 * data): a sealed secret copied onto another endpoint does not open there. Its key is named in it,
 * so a secret sealed before a rotation of the key opens with the previous one.
 *
 * Text: `cxm1.<key id>.<iv>.<ciphertext>.<tag>`, base64url parts. A stored secret without the
 * prefix is one kept before secrets were sealed: it is used as it is, and sealed at its next rotation.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'cxm1';
const IV_BYTES = 12;

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

/** Whether `stored` is sealed (rather than a secret kept before secrets were sealed). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(`${PREFIX}.`);
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
