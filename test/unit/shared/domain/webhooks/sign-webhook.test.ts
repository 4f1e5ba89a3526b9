/**
 * The signature headers, verified by the specification's reference library (`standardwebhooks`),
 * as a receiver would: one secret, two during a rotation, and the refusals a receiver makes.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { webhookHeaders } from '#shared/domain/webhooks/sign-webhook';
import { newWebhookSecret, webhookKey } from '#shared/domain/webhooks/webhook-secret';

const body = JSON.stringify({
  type: 'note.created',
  timestamp: '2026-11-27T02:00:00.000Z',
  data: { tenantId: 'acme', conversationId: 'c-1', noteId: 'n-1' },
});
const message = { id: 'msg_01JDXQ7Z8R2V3K4M5N6P7Q8R9S', body };

describe('webhookHeaders', () => {
  it('signs as Standard Webhooks 1.0 says: the reference library verifies it and reads the body back', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders(message, [secret], new Date());
    expect(headers['webhook-id']).toBe(message.id);
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('during a rotation both secrets sign, and a receiver holding either one verifies', () => {
    const [next, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = webhookHeaders(message, [next, previous], new Date());
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [next, previous]) expect(() => new Webhook(secret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow(WebhookVerificationError);
  });

  it('a changed body, id or timestamp no longer verifies, and an old attempt is refused as a replay', () => {
    const secret = newWebhookSecret();
    const receiver = new Webhook(secret);
    const headers = webhookHeaders(message, [secret], new Date());
    expect(() => receiver.verify(`${body} `, { ...headers })).toThrow(WebhookVerificationError);
    expect(() => receiver.verify(body, { ...headers, 'webhook-id': 'msg_other' })).toThrow(WebhookVerificationError);
    const later = String(Number(headers['webhook-timestamp']) + 1);
    expect(() => receiver.verify(body, { ...headers, 'webhook-timestamp': later })).toThrow(WebhookVerificationError);
    const stale = webhookHeaders(message, [secret], new Date(Date.now() - 10 * 60 * 1000));
    expect(() => receiver.verify(body, { ...stale })).toThrow(/timestamp/i);
  });

  it('the same message keeps its id and signs its own timestamp on every attempt', () => {
    const secret = newWebhookSecret();
    const first = webhookHeaders(message, [secret], new Date('2026-11-27T02:00:00Z'));
    const retry = webhookHeaders(message, [secret], new Date('2026-11-27T02:00:05Z'));
    expect(retry['webhook-id']).toBe(first['webhook-id']);
    expect(Number(retry['webhook-timestamp']) - Number(first['webhook-timestamp'])).toBe(5);
    expect(retry['webhook-signature']).not.toBe(first['webhook-signature']);
  });

  it('refuses to sign without a secret, or an id holding the separator', () => {
    expect(() => webhookHeaders(message, [], new Date())).toThrow(/at least one secret/);
    expect(() => webhookHeaders({ ...message, id: 'a.b' }, [newWebhookSecret()], new Date())).toThrow(/"\."/);
  });
});

describe('webhook secrets', () => {
  it('a new secret is whsec_ and the base64 of 32 random bytes, and the reference library takes it', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookKey(secret)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
    expect(() => new Webhook(secret)).not.toThrow();
  });

  it.each([
    ['no prefix', Buffer.alloc(32, 1).toString('base64'), /starts with whsec_/],
    ['not base64', 'whsec_not base64!', /base64/],
    ['a key of 16 bytes', `whsec_${Buffer.alloc(16, 1).toString('base64')}`, /24 to 64 bytes, not 16/],
    ['a key of 65 bytes', `whsec_${Buffer.alloc(65, 1).toString('base64')}`, /24 to 64 bytes, not 65/],
  ])('refuses a secret with %s, saying why', (_case, secret, reason) => {
    expect(() => webhookKey(secret)).toThrow(reason);
  });
});
