/**
 * Signing secrets sealed at rest: what a seal holds, what opens it, what does not.
 */
import { describe, expect, it } from 'vitest';
import { isSealed, openSecret, sealedKeyId, sealingKey, sealSecret } from '#shared/domain/webhooks/sealed-secret';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';

const key = sealingKey('stage-webhook-secret-key-0123456789abcdefghijklmnopqrstuv');
const other = sealingKey('another-stage-key-0123456789abcdefghijklmnopqrstuvwxyz');
const context = { tenantId: 'acme', endpointId: 'ep_1' };

describe('a sealed secret', () => {
  it('holds neither the secret nor the key, names its key, and opens to the secret', () => {
    const secret = newWebhookSecret();
    const sealed = sealSecret(secret, key, context);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealedKeyId(sealed)).toBe(key.id);
    expect(openSecret(sealed, key, context)).toBe(secret);
    // A fresh IV each time: the same secret never seals to the same text.
    expect(sealSecret(secret, key, context)).not.toBe(sealed);
  });

  it('does not open under another key, for another endpoint or tenant, or altered', () => {
    const sealed = sealSecret(newWebhookSecret(), key, context);
    expect(() => openSecret(sealed, other, context)).toThrow();
    expect(() => openSecret(sealed, key, { ...context, endpointId: 'ep_2' })).toThrow();
    expect(() => openSecret(sealed, key, { ...context, tenantId: 'other' })).toThrow();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(() => openSecret(parts.join('.'), key, context)).toThrow();
  });

  it('a secret kept before sealing is told apart', () => {
    expect(isSealed(newWebhookSecret())).toBe(false);
    expect(sealedKeyId(newWebhookSecret())).toBeUndefined();
  });
});
