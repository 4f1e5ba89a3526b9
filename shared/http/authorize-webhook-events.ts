/**
 * A webhook endpoint's create or change, authorised for the events the endpoint will have: each
 * needs the read scope of what it carries (shared/http/webhook-event-scopes.ts), else 403 naming
 * the event and the scope.
 */

import { badRequest, subscriptionDenied } from '#shared/api/api-error';
import type { Caller } from '#shared/auth/authorizer-context';
import { MAX_ENDPOINT_COLLECTIONS } from '#shared/domain/webhooks/webhook-endpoint';
import type { WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import { subscriptionFor } from '#shared/http/webhook-event-scopes';

/**
 * The collections whose document events the endpoint receives (`all`: every one), or the refusal.
 *
 * @example const collections = authorizeWebhookEvents(caller, body.events); // ['bots'], or 'all'
 */
export function authorizeWebhookEvents(
  caller: Pick<Caller, 'scopes'>,
  events: readonly WebhookEventType[],
): readonly string[] | 'all' {
  const subscription = subscriptionFor(caller.scopes, events);
  if (subscription.kind === 'denied') throw subscriptionDenied(subscription.event, subscription.scope);
  if (subscription.kind === 'too-many-collections')
    throw badRequest(
      `The API key reads ${subscription.count} collections by name, more than an endpoint keeps (${MAX_ENDPOINT_COLLECTIONS}): ` +
        "subscribe to 'provisioning.document.changed' with a key of fewer collections, or of provisioning:read.",
    );
  return subscription.collections ?? 'all';
}
