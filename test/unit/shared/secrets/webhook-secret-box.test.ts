/**
 * The stage's webhook secret key on the path a deployed function takes (Powertools Parameters and
 * the Secrets Manager client against the local stand-in): the registration and the rotation seal
 * to its public key, given in their configuration, without reading the secret; the delivery reads
 * it to open what they sealed, across a rotation of the key (the new value becomes AWSCURRENT, the
 * replaced one AWSPREVIOUS).
 */
import { describe, expect, it } from 'vitest';
import {
  sealedKeyId,
  sealingKey,
  sealingKeyPair,
  sealingPublicKeyText,
  sealSecret,
} from '#shared/domain/webhooks/sealed-secret';
import { webhookSecretBox, webhookSecretSealer } from '#shared/secrets/webhook-secret-box';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { useStageSecretInSecretsManager } from '#test/support/counted-secrets-manager';

const KEY_1 = 'the-first-webhook-secret-key-of-this-stage-0123456789';
const KEY_2 = 'the-second-webhook-secret-key-after-rotation-0123456789';
const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CONTEXT = { tenantId: 'acme', endpointId: 'ep_1' };

const stage = useStageSecretInSecretsManager('webhookSecretKey', KEY_1);
const sealerOf = (value: string) =>
  webhookSecretSealer({ [FUNCTION_ENV.webhookSealingKey]: sealingPublicKeyText(value) });

describe('the webhook secret key of a stage (Secrets Manager)', () => {
  it('a function that only seals reads no secret: its public key is in its configuration', async () => {
    const before = stage.manager.calls();
    const stored = await sealerOf(KEY_1).seal(SIGNING_SECRET, CONTEXT);
    expect(stage.manager.calls()).toBe(before);
    expect(sealedKeyId(stored)).toBe(sealingKeyPair(KEY_1).publicKey.id);
    expect(stored).not.toContain(SIGNING_SECRET);
    expect(await webhookSecretBox().open(stored, CONTEXT)).toBe(SIGNING_SECRET);
    // The box opens, so it reads the current version; nothing names another, so not the previous one.
    expect(stage.manager.stages().slice(before)).toEqual(['AWSCURRENT']);
  });

  it('a function that seals fails at cold start without its public key, or with one that is none, naming the setting', () => {
    expect(() => webhookSecretSealer({})).toThrow(
      'CXM_WEBHOOK_SEALING_KEY is not set: webhook signing secrets cannot be sealed',
    );
    expect(() => webhookSecretSealer({ [FUNCTION_ENV.webhookSealingKey]: KEY_1 })).toThrow(
      'CXM_WEBHOOK_SEALING_KEY is not an X25519 public key',
    );
  });

  it('what was sealed to the key before a rotation and after it both open, for their endpoint only', async () => {
    const before = await sealerOf(KEY_1).seal(SIGNING_SECRET, CONTEXT);
    stage.rotate(KEY_2);
    const after = await sealerOf(KEY_2).seal(SIGNING_SECRET, CONTEXT);
    const box = webhookSecretBox();
    const calls = stage.manager.stages().length;
    expect(await box.open(after, CONTEXT)).toBe(SIGNING_SECRET);
    expect(await box.open(before, CONTEXT)).toBe(SIGNING_SECRET);
    // The seal of the replaced value named a key the current one is not: one read of both, then kept.
    expect(await box.open(before, CONTEXT)).toBe(SIGNING_SECRET);
    expect(stage.manager.stages().slice(calls).sort()).toEqual(['AWSCURRENT', 'AWSCURRENT', 'AWSPREVIOUS']);
    await expect(box.open(before, { ...CONTEXT, endpointId: 'ep_2' })).rejects.toThrow();
  });

  it('a secret sealed under the key derived from a value (cxm1) still opens, and a secret never sealed is used as it is', async () => {
    const box = webhookSecretBox();
    expect(await box.open(sealSecret(SIGNING_SECRET, sealingKey(KEY_1), CONTEXT), CONTEXT)).toBe(SIGNING_SECRET);
    expect(await box.open(SIGNING_SECRET, CONTEXT)).toBe(SIGNING_SECRET);
  });

  it('a secret sealed to a key this stage never had does not open, and says so', async () => {
    const stored = await sealerOf(KEY_2).seal(SIGNING_SECRET, CONTEXT);
    await expect(webhookSecretBox().open(stored, CONTEXT)).rejects.toThrow(
      `a webhook signing secret is sealed under key ${sealingKeyPair(KEY_2).publicKey.id}, which this stage no longer has`,
    );
  });
});
