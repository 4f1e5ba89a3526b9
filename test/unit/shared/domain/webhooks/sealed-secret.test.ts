/**
 * Signing secrets sealed at rest: what a seal holds, what opens it, what does not.
 */
import { describe, expect, it } from 'vitest';
import {
  isSealed,
  isSealedToPublicKey,
  openSecret,
  openSecretWith,
  sealedKeyId,
  sealingKey,
  sealingKeyPair,
  sealingPublicKey,
  sealingPublicKeyText,
  sealSecret,
  sealSecretTo,
} from '#shared/domain/webhooks/sealed-secret';
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

describe('a secret sealed to the public key of a stage', () => {
  const VALUE = 'stage-webhook-secret-key-0123456789abcdefghijklmnopqrstuv';
  const pair = sealingKeyPair(VALUE);
  const otherPair = sealingKeyPair('another-stage-key-0123456789abcdefghijklmnopqrstuvwxyz');
  const publicKey = sealingPublicKey(sealingPublicKeyText(VALUE), 'CXM_WEBHOOK_SEALING_KEY');

  it('is sealed with the public key alone and opens with the pair its value gives', () => {
    const secret = newWebhookSecret();
    const sealed = sealSecretTo(secret, publicKey, context);
    expect(isSealed(sealed)).toBe(true);
    expect(isSealedToPublicKey(sealed)).toBe(true);
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealedKeyId(sealed)).toBe(pair.publicKey.id);
    expect(openSecretWith(sealed, sealingKeyPair(VALUE), context)).toBe(secret);
    // A fresh ephemeral key each time: the same secret never seals to the same text.
    expect(sealSecretTo(secret, publicKey, context).split('.')[2]).not.toBe(sealed.split('.')[2]);
  });

  it('does not open with another pair, for another endpoint or tenant, or altered', () => {
    const sealed = sealSecretTo(newWebhookSecret(), publicKey, context);
    expect(() => openSecretWith(sealed, otherPair, context)).toThrow();
    expect(() => openSecretWith(sealed, pair, { ...context, endpointId: 'ep_2' })).toThrow();
    expect(() => openSecretWith(sealed, pair, { ...context, tenantId: 'other' })).toThrow();
    for (const part of [2, 3, 4, 5]) {
      const parts = sealed.split('.');
      const flipped = Buffer.from(parts[part]!, 'base64url');
      flipped[0] = flipped[0]! ^ 1;
      parts[part] = flipped.toString('base64url');
      expect(() => openSecretWith(parts.join('.'), pair, context), `part ${part}`).toThrow();
    }
  });

  it('a key pair is the same for the same value and differs from the derived key of cxm1', () => {
    expect(sealingPublicKeyText(VALUE)).toBe(pair.publicKey.raw.toString('base64url'));
    expect(pair.publicKey.id).not.toBe(otherPair.publicKey.id);
    expect(pair.publicKey.id).not.toBe(key.id);
  });

  it('a configured public key that is not 32 bytes of base64url is refused, naming the setting', () => {
    for (const text of ['', 'abc', `${sealingPublicKeyText(VALUE)}A`, `${sealingPublicKeyText(VALUE)}=`])
      expect(() => sealingPublicKey(text, 'CXM_WEBHOOK_SEALING_KEY')).toThrow(
        /CXM_WEBHOOK_SEALING_KEY is not an X25519/,
      );
  });

  it('a seal of the derived key and a seal to the public key are told apart', () => {
    expect(isSealedToPublicKey(sealSecret(newWebhookSecret(), key, context))).toBe(false);
    expect(() => openSecret(sealSecretTo(newWebhookSecret(), publicKey, context), key, context)).toThrow();
  });
});
