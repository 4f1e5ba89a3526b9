/**
 * POST /api/v1/webhooks/tenants/{tenantId}/endpoints: registers where the tenant's events go, and
 * answers the endpoint's signing secret, shown this once (safe retries apply: a keyed retry answers
 * the same endpoint, the secret withheld, since the idempotency ledger never holds it). The URL is checked as every attempt will check it; a tenant has at most its
 * stage's number of endpoints. The key must read what each event carries (authorize-webhook-events.ts),
 * and a document event reaches the endpoint for the collections the key reads.
 */

import { badRequest, conflict } from '#shared/api/api-error';
import { endpointView, newEndpointId, secretWithheld } from '#shared/domain/webhooks/webhook-endpoint';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import { authorizeWebhookEvents } from '#shared/http/authorize-webhook-events';
import { createApiHandler } from '#shared/http/create-api-handler';
import { recordAnswer, replayRecorded } from '#shared/http/idempotent-answer';
import { createWebhookEndpoint } from '#shared/schemas/route-validators.generated';
import { webhookSecretSealer } from '#shared/secrets/webhook-secret-box';
import { maxEndpointsPerTenant, webhookOwnHosts, webhookTargetRules } from '#shared/settings/webhook-settings';
import { idempotencyLedger, webhookEndpointsStore } from '#shared/store/function-stores';
import { checkWebhookTarget } from '#shared/webhooks/post-webhook';

const endpoints = webhookEndpointsStore();
const ledger = idempotencyLedger();
const limit = maxEndpointsPerTenant();
const rules = webhookTargetRules();
const sealer = webhookSecretSealer();

export const handler = createApiHandler(
  createWebhookEndpoint,
  async ({ tenantId, caller, body, signal, idempotency, http }) => {
    const target = await checkWebhookTarget(body.url, rules, { ownHosts: webhookOwnHosts() });
    if (!target.ok) throw badRequest(`Field 'url' cannot receive webhooks: ${target.reason}.`);
    const collections = authorizeWebhookEvents(caller, body.events);
    const now = new Date();
    const id = newEndpointId(now.getTime());
    const secret = newWebhookSecret();
    const stored = {
      id,
      url: body.url,
      events: [...body.events],
      ...(collections !== 'all' && { collections: [...collections] }),
      description: body.description ?? '',
      status: 'enabled' as const,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      secrets: { current: await sealer.seal(secret, { tenantId, endpointId: id }) },
    };
    const answer = { status: 201, body: { ...endpointView(stored), secret } };
    const withheld = {
      status: 201,
      body: {
        ...endpointView(stored),
        secretWithheld: secretWithheld(`${new URL(http.selfUrl).pathname}/${stored.id}/rotate-secret`),
      },
    };
    const outcome = await endpoints.create(tenantId, stored, {
      limit,
      signal,
      record: recordAnswer(ledger, idempotency, () => withheld),
    });
    if (outcome.kind === 'recorded') return replayRecorded(outcome.record, idempotency);
    if (outcome.kind === 'full')
      throw conflict(
        `This tenant has ${outcome.limit} webhook endpoints, the most it may: delete one it no longer uses (or send more event types to one) first.`,
      );
    return answer;
  },
);
