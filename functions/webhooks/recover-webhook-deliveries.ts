/**
 * POST /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}/recover: the endpoint's
 * deliveries that failed, for events since `since`, are pending again with their schedule started
 * over, and their tasks queued (202: they are sent from now on, under their same `webhook-id`), a
 * bounded number per call (shared/webhooks/recover-deliveries.ts). The endpoint must be enabled: a
 * disabled one would refuse them at once. One recover per endpoint per RECOVER_INTERVAL_MS, claimed
 * on the endpoint before anything is read, so that concurrent calls cannot both pass.
 */

import { ApiError, conflict, notFound } from '#shared/api/api-error';
import {
  MAX_RECOVERED_DELIVERIES,
  RECOVER_INTERVAL_MS,
  RECOVER_READ_LIMIT,
  recoverRetryAfterSeconds,
} from '#shared/domain/webhooks/recover-limits';
import { createApiHandler } from '#shared/http/create-api-handler';
import { recoverWebhookDeliveries } from '#shared/schemas/route-validators.generated';
import { webhookDeliveriesStore, webhookDeliveryQueue, webhookEndpointsStore } from '#shared/store/function-stores';
import { recoverDeliveries } from '#shared/webhooks/recover-deliveries';

const endpoints = webhookEndpointsStore();
const deliveries = webhookDeliveriesStore();
const queue = webhookDeliveryQueue();

const LIMITS = {
  read: RECOVER_READ_LIMIT,
  recovered: MAX_RECOVERED_DELIVERIES,
  intervalSeconds: RECOVER_INTERVAL_MS / 1000,
};

/** 429: the endpoint was recovered less than the interval ago; `Retry-After` and the message say when to come back. */
function recoveredTooSoon(endpointId: string, lastRecoverAt: number, nowMs: number): ApiError {
  const retryAfter = recoverRetryAfterSeconds(lastRecoverAt, nowMs);
  const from = new Date(lastRecoverAt + RECOVER_INTERVAL_MS).toISOString();
  return new ApiError(
    429,
    'RateLimitExceeded',
    `Webhook endpoint '${endpointId}' was recovered at ${new Date(lastRecoverAt).toISOString()}, and an endpoint is recovered at most once every ${LIMITS.intervalSeconds} s: recover again from ${from} (in ${retryAfter} s).`,
    { 'Retry-After': String(retryAfter) },
  );
}

export const handler = createApiHandler(recoverWebhookDeliveries, async ({ tenantId, path, body, signal }) => {
  const nowMs = Date.now();
  const claim = await endpoints.claimRecover(tenantId, path.endpointId, nowMs, RECOVER_INTERVAL_MS, signal);
  if (claim.kind === 'not-found') throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  if (claim.kind === 'disabled')
    throw conflict(
      `Webhook endpoint '${path.endpointId}' is disabled (${claim.reason ?? 'no reason given'}): enable it (PATCH with "status": "enabled") before recovering its deliveries.`,
    );
  if (claim.kind === 'too-soon') throw recoveredTooSoon(path.endpointId, claim.lastRecoverAt, nowMs);
  const since = new Date(body.since).toISOString();
  const outcome = await recoverDeliveries({ deliveries, queue }, tenantId, path.endpointId, since, signal);
  return { status: 202, body: { ...outcome, limits: LIMITS } };
});
