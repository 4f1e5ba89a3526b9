/**
 * Seals and opens tenants' webhook signing secrets (shared/domain/webhooks/sealed-secret.ts). The
 * stage's webhook secret key (`CXM_WEBHOOK_SECRET_KEY` locally, `CXM_WEBHOOK_SECRET_KEY_ARN` in the
 * cloud: a Secrets Manager secret only the delivery function reads) gives a key pair; the functions
 * that make signing secrets (the registration, the rotation) hold its public key alone
 * (`CXM_WEBHOOK_SEALING_KEY`, `webhookSecretSealer`): they seal without a Secrets Manager call and
 * cannot open what they sealed. A secret sealed to the pair of the value a rotation replaced still
 * opens (secret-versions.ts), as does one sealed under the value's derived key, and one kept before
 * secrets were sealed is used as it is.
 */
import {
  isSealed,
  isSealedToPublicKey,
  openSecret,
  openSecretWith,
  type SealContext,
  type SealingKey,
  type SealingKeyPair,
  sealedKeyId,
  sealingKey,
  sealingKeyPair,
  sealingPublicKey,
  sealSecretTo,
} from '#shared/domain/webhooks/sealed-secret';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { type SecretSetting, secretVersionsSource } from './secret-versions.ts';

export interface WebhookSecretSealer {
  seal(secret: string, context: SealContext): Promise<string>;
}

export interface WebhookSecretBox {
  open(stored: string, context: SealContext): Promise<string>;
}

const KEY_SETTING: SecretSetting = {
  what: 'the webhook secret key',
  without: 'webhook signing secrets cannot be opened',
  secret: 'webhookSecretKey',
};

/** What one value of the stage's key opens: secrets sealed to its pair, and under its derived key. */
interface ValueKeys {
  pair: SealingKeyPair;
  derived: SealingKey;
}

const valueKeys = (value: string): ValueKeys => ({ pair: sealingKeyPair(value), derived: sealingKey(value) });

function opens(keys: ValueKeys, id: string): boolean {
  return keys.pair.publicKey.id === id || keys.derived.id === id;
}

/**
 * The box of this function's stage: opens what was sealed to any value it accepts.
 *
 * @example
 * const box = webhookSecretBox(); // at module scope: a function without the key fails at cold start
 * const secret = await box.open(endpoint.secrets.current, { tenantId, endpointId });
 */
export function webhookSecretBox(): WebhookSecretBox {
  // A seal names its key: the value a rotation replaced is read once a seal names it.
  const keys = secretVersionsSource(KEY_SETTING, valueKeys, { previous: 'onDemand' });
  return {
    async open(stored, context) {
      if (!isSealed(stored)) return stored;
      const id = sealedKeyId(stored)!;
      // A key this container has not read yet (rotated since): one fresh read, then it must be there.
      const found =
        (await keys()).find((candidate) => opens(candidate, id)) ??
        (await keys({ fresh: true })).find((candidate) => opens(candidate, id));
      if (!found) throw new Error(`a webhook signing secret is sealed under key ${id}, which this stage no longer has`);
      return isSealedToPublicKey(stored)
        ? openSecretWith(stored, found.pair, context)
        : openSecret(stored, found.derived, context);
    },
  };
}

/**
 * Seals to the public key in this function's configuration (`CXM_WEBHOOK_SEALING_KEY`): for the
 * functions that make signing secrets and never open one. No secret is read.
 *
 * @example
 * const sealer = webhookSecretSealer(); // at module scope: a function without the key fails at cold start
 * const stored = await sealer.seal(newWebhookSecret(), { tenantId, endpointId });
 */
export function webhookSecretSealer(env: NodeJS.ProcessEnv = process.env): WebhookSecretSealer {
  const name = FUNCTION_ENV.webhookSealingKey;
  const text = env[name];
  if (!text) throw new Error(`${name} is not set: webhook signing secrets cannot be sealed`);
  const publicKey = sealingPublicKey(text, name);
  return { seal: async (secret, context) => sealSecretTo(secret, publicKey, context) };
}
