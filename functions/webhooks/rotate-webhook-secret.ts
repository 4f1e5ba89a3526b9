/**
 * POST /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}/rotate-secret: a new signing
 * secret, shown this once; the replaced one keeps signing beside it for 24 hours, so the receiver
 * can switch without losing a delivery (safe retries apply: a keyed retry answers the same secret
 * rather than rotating again).
 */

import type { StoredWebhookEndpoint } from '#shared/domain/webhooks/webhook-endpoint';
import { notFound } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { rotateWebhookSecret } from '#shared/schemas/route-validators.generated';
import { idempotencyLedger, webhookEndpointsStore } from '#shared/store/function-stores';

const endpoints = webhookEndpointsStore();
const ledger = idempotencyLedger();

const rotatedAnswer = ({ secrets }: StoredWebhookEndpoint) => ({
  status: 200,
  body: {
    secret: secrets.current,
    previousSecretExpiresAt: new Date(secrets.previous?.until ?? Date.now()).toISOString(),
  },
});

export const handler = createApiHandler(rotateWebhookSecret, async ({ tenantId, path, signal, idempotency }) => {
  const outcome = await endpoints.rotateSecret(tenantId, path.endpointId, Date.now(), {
    signal,
    record: recordAnswer(ledger, idempotency, rotatedAnswer),
  });
  if (outcome.kind === 'recorded') return replayRecorded(outcome.record, idempotency);
  if (outcome.kind === 'not-found') throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  return rotatedAnswer(outcome.endpoint);
});
