/** A rotation: both secrets sign for 24 hours, the new one first; then the new one alone. */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { webhookHeaders } from '#shared/domain/webhooks/sign-webhook';
import { PREVIOUS_SECRET_SIGNS_FOR_MS, rotateSecrets, signingSecretsAt } from '#shared/domain/webhooks/signing-secrets';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';

const now = Date.parse('2026-11-27T03:00:00Z');
const body = '{"type":"note.created"}';

describe('signing secrets across a rotation', () => {
  it('before any rotation, the one secret signs', () => {
    const current = newWebhookSecret();
    expect(signingSecretsAt({ current }, now)).toEqual([current]);
  });

  it('for 24 hours after a rotation both sign, the new one first, and a receiver with either verifies', () => {
    const old = newWebhookSecret();
    const rotated = rotateSecrets({ current: old }, newWebhookSecret(), now);
    expect(rotated.current).not.toBe(old);
    expect(rotated.previous).toEqual({ secret: old, until: now + PREVIOUS_SECRET_SIGNS_FOR_MS });
    const signing = signingSecretsAt(rotated, now + PREVIOUS_SECRET_SIGNS_FOR_MS - 1);
    expect(signing).toEqual([rotated.current, old]);
    const headers = webhookHeaders({ id: 'msg_1', body }, signing, new Date());
    for (const secret of [old, rotated.current])
      expect(() => new Webhook(secret).verify(body, { ...headers })).not.toThrow();
  });

  it('after 24 hours only the new secret signs', () => {
    const rotated = rotateSecrets({ current: newWebhookSecret() }, newWebhookSecret(), now);
    expect(signingSecretsAt(rotated, now + PREVIOUS_SECRET_SIGNS_FOR_MS)).toEqual([rotated.current]);
  });

  it('a second rotation within the 24 hours keeps only the secret it replaces: never three signatures', () => {
    const first = rotateSecrets({ current: newWebhookSecret() }, newWebhookSecret(), now);
    const second = rotateSecrets(first, newWebhookSecret(), now + 60_000);
    expect(signingSecretsAt(second, now + 120_000)).toEqual([second.current, first.current]);
  });
});
