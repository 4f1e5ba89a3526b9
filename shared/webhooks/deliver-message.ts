/**
 * One attempt at a pending delivery, and what follows it: the message signed by the endpoint's
 * secrets of the moment and POSTed to its URL of the moment (post-webhook.ts), the outcome
 * recorded, and the next step of the schedule (retry-schedule.ts). A 410 disables the endpoint at
 * once; a failure that finds the endpoint failing for 5 days disables it, saying since when; a
 * success ends its failing streak. A delivery whose endpoint was disabled or deleted meanwhile
 * fails without an attempt, saying why (a recover sends it again once the endpoint is enabled); so
 * does one whose endpoint no longer takes its event (fan-out.ts: its type, a document's collection).
 * The next attempt is queued when the queue's longest delay can carry its wait, and is left to the
 * sweeper otherwise (sweep-deliveries.ts). Copies of one queue message are harmless: a delivery no
 * longer pending is left alone, one not yet due is answered with the rest of its wait (carried in
 * hops when longer than the queue's delay), and an attempt posts only once it has claimed the
 * delivery, which no other attempt since the read has recorded or holds; the copy that finds it
 * claimed ends, its claimant queuing what follows (one that died lets the claim lapse, and the
 * queue's next delivery of its task or the sweeper sends it).
 */

import { DELIVERY_SWEEP_TIMING, queueCarries } from '#shared/domain/webhooks/delivery-sweep';
import { deliverySubject, takesEvent } from '#shared/domain/webhooks/fan-out';
import {
  endpointFailedTooLong,
  nextStep,
  RETRY_SCHEDULE_MS,
  SLOW_ANSWER_MS,
  SLOW_ANSWERS_BEFORE_PAUSE,
  type SlowAnswerRule,
  slowAnswersPause,
} from '#shared/domain/webhooks/retry-schedule';
import { webhookHeaders } from '#shared/domain/webhooks/sign-webhook';
import { signingSecretsAt } from '#shared/domain/webhooks/signing-secrets';
import { ATTEMPT_CLAIM_SECONDS, type DeliveryKey } from '#shared/domain/webhooks/webhook-delivery';
import type { StoredWebhookEndpoint } from '#shared/domain/webhooks/webhook-endpoint';
import type { WebhookTargetRules } from '#shared/domain/webhooks/webhook-target';
import type { WebhookSecretBox } from '#shared/secrets/webhook-secret-box';
import type { AttemptRecord, WebhookDeliveriesStore } from '#shared/store/webhook-deliveries-store';
import type { WebhookEndpointsStore } from '#shared/store/webhook-endpoints-store';
import { type PostWebhookOptions, postWebhook } from './post-webhook.ts';

export interface DeliverMessageDeps {
  endpoints: WebhookEndpointsStore;
  deliveries: WebhookDeliveriesStore;
  /** Opens the endpoint's sealed signing secrets (webhook-secret-box.ts). */
  secrets: WebhookSecretBox;
  rules: WebhookTargetRules;
  /** The waits before each attempt (RETRY_SCHEDULE_MS, or a local stage's shorter one). */
  schedule?: readonly number[];
  /** The attempt's options (a test's resolver or timeout). */
  post?: PostWebhookOptions;
  /** When answers count as slow, and how many in a row pause the endpoint (default the stage's). */
  slow?: SlowAnswerRule;
  now?: () => number;
}

/** Why a delivery of an event its endpoint no longer takes (its events or collections changed) is not sent. */
export const UNSUBSCRIBED = 'not sent: the endpoint no longer takes this event (its events or collections changed)';

/** What the caller does next with the delivery's task: nothing more, or run it again after a wait. */
export type DeliveryNext = { kind: 'done' } | { kind: 'retry'; afterMs: number };

/**
 * Counts the attempt's answer time toward the endpoint's slow streak (a fast one ends it) and
 * pauses the endpoint when the streak reaches the rule's length: its pending deliveries then stop
 * at their next attempt, saying why, and a PATCH `status: enabled` resumes it.
 */
async function pauseWhenSlow(
  deps: DeliverMessageDeps,
  tenantId: string,
  endpoint: StoredWebhookEndpoint,
  tookMs: number,
  endedAt: number,
): Promise<void> {
  const rule = deps.slow ?? { answerMs: SLOW_ANSWER_MS, inARow: SLOW_ANSWERS_BEFORE_PAUSE };
  const slow = tookMs >= rule.answerMs;
  // Nothing to write for a fast answer with no streak to end.
  if (!slow && endpoint.slowAnswers === undefined) return;
  const reason = slowAnswersPause(await deps.endpoints.noteAnswerTime(tenantId, endpoint.id, slow), rule);
  if (reason) await deps.endpoints.disable(tenantId, endpoint.id, reason, new Date(endedAt));
}

/**
 * Makes the next attempt of `tenantId`'s delivery at `key`, when it is still pending.
 *
 * @example const next = await deliverMessage(deps, 'acme', key); if (next.kind === 'retry') await queue.send(task, next.afterMs);
 */
export async function deliverMessage(
  deps: DeliverMessageDeps,
  tenantId: string,
  key: DeliveryKey,
): Promise<DeliveryNext> {
  const now = deps.now ?? Date.now;
  const delivery = await deps.deliveries.get(tenantId, key);
  if (delivery?.status !== 'pending') return { kind: 'done' };
  // Early (a queue's delay is shorter than the schedule's, or a copy of the task): wait the rest.
  const dueInMs = delivery.nextAttemptAt === undefined ? 0 : Date.parse(delivery.nextAttemptAt) - now();
  if (dueInMs > 0) return { kind: 'retry', afterMs: dueInMs };
  const endpoint = await deps.endpoints.get(tenantId, key.endpointId);
  if (!endpoint || endpoint.status === 'disabled') {
    const reason = endpoint
      ? `not sent: the endpoint is disabled (${endpoint.disabledReason ?? 'no reason given'})`
      : 'not sent: the endpoint was deleted';
    await deps.deliveries.stop(tenantId, key, delivery.attempts, reason);
    return { kind: 'done' };
  }
  // Its URL may have been changed by a key that may not read this event, or it was unsubscribed.
  if (!takesEvent(endpoint, deliverySubject(delivery))) {
    await deps.deliveries.stop(tenantId, key, delivery.attempts, UNSUBSCRIBED);
    return { kind: 'done' };
  }

  // Copies of its task (a queue's second delivery, two sweeps at once) are harmless only if one posts.
  const claimedAt = now();
  const claimed = await deps.deliveries.claimAttempt(
    tenantId,
    key,
    delivery.attempts,
    claimedAt,
    claimedAt + ATTEMPT_CLAIM_SECONDS * 1000,
  );
  if (!claimed) return { kind: 'done' };
  // After the claim: the answer's time, which a slow streak counts, is the receiver's, not the store's.
  const startedAt = now();
  const secrets = await Promise.all(
    signingSecretsAt(endpoint.secrets, startedAt).map((sealed) =>
      deps.secrets.open(sealed, { tenantId, endpointId: endpoint.id }),
    ),
  );
  const headers = webhookHeaders({ id: delivery.messageId, body: delivery.body }, secrets, new Date(startedAt));
  const outcome = await postWebhook(endpoint.url, deps.rules, headers, delivery.body, deps.post);
  const endedAt = now();
  await pauseWhenSlow(deps, tenantId, endpoint, endedAt - startedAt, endedAt);
  const at = new Date(endedAt).toISOString();
  const attempts = delivery.attempts + 1;
  const step = nextStep(attempts, outcome, deps.schedule ?? RETRY_SCHEDULE_MS);
  const lastStatus = outcome.kind === 'gone' ? 410 : outcome.status;
  const lastError = outcome.kind === 'failed' ? outcome.reason : undefined;
  // The attempt's record, on condition that no other attempt was recorded since the read.
  const record = (fields: Pick<AttemptRecord, 'status' | 'lastError' | 'nextAttemptAt'>) =>
    deps.deliveries.recordAttempt(tenantId, key, delivery.attempts, { at, lastStatus, ...fields });
  const fail = (reason: string) => record({ status: 'failed', lastError: reason });

  if (step.kind === 'done') {
    if ((await record({ status: 'delivered' })) && endpoint.failingSince !== undefined)
      await deps.endpoints.noteSuccess(tenantId, endpoint.id);
    return { kind: 'done' };
  }
  if (step.kind === 'disable-endpoint') {
    await fail(step.reason);
    await deps.endpoints.disable(tenantId, endpoint.id, step.reason, new Date(endedAt));
    return { kind: 'done' };
  }

  const failingSince = await deps.endpoints.noteFailure(tenantId, endpoint.id, endedAt);
  if (failingSince !== undefined && endpointFailedTooLong(failingSince, endedAt)) {
    const reason = `its deliveries have failed for 5 days, since ${new Date(failingSince).toISOString()}`;
    await fail(`${lastError}; the endpoint is disabled: ${reason}`);
    await deps.endpoints.disable(tenantId, endpoint.id, reason, new Date(endedAt));
    return { kind: 'done' };
  }
  if (step.kind === 'give-up') {
    await fail(step.reason);
    return { kind: 'done' };
  }
  const recorded = await record({
    status: 'pending',
    lastError,
    nextAttemptAt: new Date(endedAt + step.afterMs).toISOString(),
  });
  // A wait longer than the queue's longest delay is carried by no task: recorded, the sweeper
  // queues one a lead before its time (sweep-deliveries.ts), rather than a hop every 15 minutes.
  return recorded && queueCarries(step.afterMs, DELIVERY_SWEEP_TIMING)
    ? { kind: 'retry', afterMs: step.afterMs }
    : { kind: 'done' };
}
