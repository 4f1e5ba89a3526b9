/**
 * The stage's webhook secret key on the path a deployed function takes (Powertools Parameters and
 * the Secrets Manager client against the local stand-in): what the registration and the rotation
 * read to seal a signing secret, and what the delivery reads to open one, across a rotation of
 * the key (the new value becomes AWSCURRENT, the replaced one AWSPREVIOUS).
 */
import { describe, expect, it } from 'vitest';
import { sealedKeyId, sealingKey } from '#shared/domain/webhooks/sealed-secret';
import { webhookSecretBox, webhookSecretSealer } from '#shared/secrets/webhook-secret-box';
import { useStageSecretInSecretsManager } from '#test/support/counted-secrets-manager';

const KEY_1 = 'the-first-webhook-secret-key-of-this-stage-0123456789';
const KEY_2 = 'the-second-webhook-secret-key-after-rotation-0123456789';
const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CONTEXT = { tenantId: 'acme', endpointId: 'ep_1' };

const stage = useStageSecretInSecretsManager('webhookSecretKey', KEY_1);
const rotateKey = (next: string) => stage.rotate(next);

describe('the webhook secret key of a stage (Secrets Manager)', () => {
  it('a function that only seals reads the current version alone, once for many seals', async () => {
    const sealer = webhookSecretSealer();
    const before = stage.manager.stages().length;
    await Promise.all(Array.from({ length: 5 }, () => sealer.seal(SIGNING_SECRET, CONTEXT)));
    expect(stage.manager.stages().slice(before)).toEqual(['AWSCURRENT']);
  });

  it('what the sealer seals, the box opens, under the current version after a rotation', async () => {
    rotateKey(KEY_2);
    const stored = await webhookSecretSealer().seal(SIGNING_SECRET, CONTEXT);
    expect(sealedKeyId(stored)).toBe(sealingKey(KEY_2).id);
    expect(stored).not.toContain(SIGNING_SECRET);
    const before = stage.manager.stages().length;
    expect(await webhookSecretBox().open(stored, CONTEXT)).toBe(SIGNING_SECRET);
    // The box opens, so it reads both versions.
    expect(stage.manager.stages().slice(before).sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
  });

  it('a secret sealed before the key was rotated still opens', async () => {
    const stored = await webhookSecretSealer().seal(SIGNING_SECRET, CONTEXT);
    rotateKey(KEY_2);
    expect(await webhookSecretBox().open(stored, CONTEXT)).toBe(SIGNING_SECRET);
    await expect(webhookSecretBox().open(stored, { ...CONTEXT, endpointId: 'ep_2' })).rejects.toThrow();
  });
});
