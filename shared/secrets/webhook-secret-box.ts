/**
 * Seals and opens tenants' webhook signing secrets with the stage's webhook secret key
 * (`CXM_WEBHOOK_SECRET_KEY` locally, `CXM_WEBHOOK_SECRET_KEY_ARN` in the cloud: a Secrets Manager
 * secret only the functions that make or use a signing secret may read: the registration, the
 * rotation and the delivery). The current version seals; a secret sealed under the version a
 * rotation replaced still opens (secret-versions.ts), and one kept before secrets were sealed is
 * used as it is. The registration and the rotation only seal, so they read the current version
 * alone (`webhookSecretSealer`).
 */
import {
  isSealed,
  openSecret,
  type SealContext,
  type SealingKey,
  sealedKeyId,
  sealingKey,
  sealSecret,
} from '#shared/domain/webhooks/sealed-secret';
import { type SecretSetting, type SecretVersionsSource, secretVersionsSource } from './secret-versions.ts';

export interface WebhookSecretBox {
  seal(secret: string, context: SealContext): Promise<string>;
  open(stored: string, context: SealContext): Promise<string>;
}

const KEY_SETTING: SecretSetting = {
  what: 'the webhook secret key',
  without: 'webhook signing secrets cannot be sealed or opened',
  secret: 'webhookSecretKey',
};

/** Seals under the current key of `keys`. */
const sealWith =
  (keys: SecretVersionsSource<SealingKey>): WebhookSecretBox['seal'] =>
  async (secret, context) => {
    const [current] = await keys();
    return sealSecret(secret, current!, context);
  };

/**
 * The box of this function's stage.
 *
 * @example
 * const box = webhookSecretBox(); // at module scope: a function without the key fails at cold start
 * const stored = await box.seal(newWebhookSecret(), { tenantId, endpointId });
 */
export function webhookSecretBox(): WebhookSecretBox {
  const keys = secretVersionsSource(KEY_SETTING, sealingKey);
  return {
    seal: sealWith(keys),
    async open(stored, context) {
      if (!isSealed(stored)) return stored;
      const id = sealedKeyId(stored);
      // A key this container has not read yet (rotated since): one fresh read, then it must be there.
      const key =
        (await keys()).find((candidate) => candidate.id === id) ??
        (await keys({ fresh: true })).find((candidate) => candidate.id === id);
      if (!key) throw new Error(`a webhook signing secret is sealed under key ${id}, which this stage no longer has`);
      return openSecret(stored, key, context);
    },
  };
}

/**
 * Seals with the current version of the stage's key, read alone: for the functions that make
 * signing secrets and never open one (one Secrets Manager call at cold start, not two).
 *
 * @example
 * const sealer = webhookSecretSealer(); // at module scope: a function without the key fails at cold start
 * const stored = await sealer.seal(newWebhookSecret(), { tenantId, endpointId });
 */
export function webhookSecretSealer(): Pick<WebhookSecretBox, 'seal'> {
  return { seal: sealWith(secretVersionsSource(KEY_SETTING, sealingKey, { currentOnly: true })) };
}
