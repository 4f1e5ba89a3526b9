/**
 * POST /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}/rotate-secret: a new signing
 * secret, shown this once and stored sealed; the replaced one keeps signing beside it for 24 hours,
 * so the receiver can switch without losing a delivery (safe retries apply: a keyed retry does not
 * rotate again, and answers without the secret, which the idempotency ledger never holds).
 */

import { notFound } from '#shared/api/api-error';
import { type StoredWebhookEndpoint, secretWithheld } from '#shared/domain/webhooks/webhook-endpoint';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import { createApiHandler } from '#shared/http/create-api-handler';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { rotateWebhookSecret } from '#shared/schemas/route-validators.generated';
import { webhookSecretSealer } from '#shared/secrets/webhook-secret-box';
import { idempotencyLedger, webhookEndpointsStore } from '#shared/store/function-stores';

const endpoints = webhookEndpointsStore();
const ledger = idempotencyLedger();
const sealer = webhookSecretSealer();

const previousSecretExpiresAt = ({ secrets }: StoredWebhookEndpoint) =>
  new Date(secrets.previous?.until ?? Date.now()).toISOString();

export const handler = createApiHandler(rotateWebhookSecret, async ({ tenantId, path, signal, idempotency, http }) => {
  const secret = newWebhookSecret();
  const sealed = await sealer.seal(secret, { tenantId, endpointId: path.endpointId });
  const withheld = (endpoint: StoredWebhookEndpoint) => ({
    status: 200,
    body: {
      secretWithheld: secretWithheld(new URL(http.selfUrl).pathname),
      previousSecretExpiresAt: previousSecretExpiresAt(endpoint),
    },
  });
  const outcome = await endpoints.rotateSecret(tenantId, path.endpointId, sealed, Date.now(), {
    signal,
    record: recordAnswer(ledger, idempotency, withheld),
  });
  if (outcome.kind === 'recorded') return replayRecorded(outcome.record, idempotency);
  if (outcome.kind === 'not-found') throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  return { status: 200, body: { secret, previousSecretExpiresAt: previousSecretExpiresAt(outcome.endpoint) } };
});
