/**
 * The headers that make one delivery attempt verifiable by its receiver (Standard Webhooks 1.0):
 * `webhook-id` (the message's, the same on every attempt), `webhook-timestamp` (the attempt's, in
 * Unix seconds, so a receiver can refuse a replay) and `webhook-signature`, `v1,` and the base64 of
 * HMAC-SHA256 over `{id}.{timestamp}.{body}`, once per secret and space-separated: during a
 * rotation both the new secret and the old one sign, so a receiver holding either verifies.
 */
import { hmacSha256 } from '../hmac-sha256.ts';
import { webhookKey } from './webhook-secret.ts';

export interface WebhookMessage {
  /** The message id: one per event and endpoint, the receiver's key for deduplication. */
  id: string;
  /** The JSON body, exactly as it is sent. */
  body: string;
}

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The headers of an attempt made at `at`, signed by every secret in `secrets` (the newest first).
 *
 * @example const headers = webhookHeaders({ id: 'msg_01J…', body }, [secret], new Date());
 */
export function webhookHeaders(message: WebhookMessage, secrets: readonly string[], at: Date): WebhookHeaders {
  if (secrets.length === 0) throw new RangeError('a webhook is signed by at least one secret');
  if (message.id.includes('.')) throw new RangeError('a webhook id cannot hold "." (it separates the signed parts)');
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signed = `${message.id}.${timestamp}.${message.body}`;
  const signatures = secrets.map((secret) => `v1,${hmacSha256(webhookKey(secret)).update(signed).digest('base64')}`);
  return { 'webhook-id': message.id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
