/**
 * The public key of the stage's webhook secret key, as a deploy configures the functions that
 * seal with it (the registration and the rotation, `CXM_WEBHOOK_SEALING_KEY`): read from Secrets
 * Manager by the stack's custom resource (infra/cdk/constructs/webhook-sealing-key.ts) when the
 * stack is created or updated. When the stage's generation of the key goes up, the resource first
 * puts a new value (AWSCURRENT; the one it replaces becomes AWSPREVIOUS, which the delivery still
 * opens), so one deploy rotates the key and configures the sealers with its public key.
 */

import { createHash, randomBytes } from 'node:crypto';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { sealingPublicKeyText } from '#shared/domain/webhooks/sealed-secret';
import { checkedSecret } from './secret-versions.ts';

/**
 * `value` as a generation of the key: a whole number of at least 1; else throws, naming `what`.
 * The stage config is checked with it at synthesis, the resource's property again at deploy.
 *
 * @example keyGeneration(config.webhooks.secretKeyGeneration, 'webhooks.secretKeyGeneration of stage dev') // 1
 */
export function keyGeneration(value: unknown, what: string): number {
  const generation = typeof value === 'string' ? Number(value) : value;
  if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation < 1)
    throw new Error(`${what} must be a whole number of at least 1, not ${String(value)}`);
  return generation;
}

/** What a deploy asks of the stage's webhook secret key. */
export interface SealingKeyRequest {
  /** The Secrets Manager secret: its ARN. */
  secretId: string;
  /** The stage's generation of the key (infra/cdk/stage/config.ts). */
  generation: number;
  /** The generation the stack had before this deploy; undefined when the stack creates the resource. */
  previousGeneration?: number;
  /** What names this deploy's rotation, so a retried request puts no second value (the stack and resource). */
  requester: string;
}

/** The value's length: 48 random bytes, base64url. */
const VALUE_BYTES = 48;

/**
 * Whether `request` rotates the key: only a generation that went up does. A rollback (down) and
 * any other update read the current value, so a failed deploy's rollback rotates nothing again.
 */
export function rotatesKey(request: SealingKeyRequest): boolean {
  return request.previousGeneration !== undefined && request.generation > request.previousGeneration;
}

/**
 * Puts a new value of the key when `request` rotates it, then answers the current value's public
 * key (base64url), which seals what only the stage's delivery function can open.
 *
 * @example const publicKey = await publishSealingKey(new SecretsManagerClient({ ...SDK_CLIENT_OPTIONS }), { secretId, generation: 1, requester });
 */
export async function publishSealingKey(client: SecretsManagerClient, request: SealingKeyRequest): Promise<string> {
  const { secretId } = request;
  if (rotatesKey(request)) {
    // One version per generation: Secrets Manager answers a token it has seen with another value
    // as already existing, which is a retry of this very rotation.
    const token = createHash('sha256').update(`${request.requester}/${request.generation}`).digest('hex');
    const value = randomBytes(VALUE_BYTES).toString('base64url');
    await client
      .send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value, ClientRequestToken: token }))
      .catch((error: unknown) => {
        if (!(error instanceof ResourceExistsException)) throw error;
      });
  }
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  return sealingPublicKeyText(checkedSecret(SecretString, `the webhook secret key ${secretId}`));
}
