/**
 * A tenant's webhook endpoint: where its events go, which ones, and whether deliveries are made.
 * The API shows an endpoint without its secrets (they are shown once: by the create and by a
 * rotation); the stored endpoint keeps them, and since when its deliveries have failed (an
 * endpoint failing for 5 days is disabled with its reason, retry-schedule.ts).
 */
import { newUlid } from '#shared/domain/ids/new-ulid';
import type { SigningSecrets } from './signing-secrets.ts';
import type { WebhookEventType } from './webhook-events.ts';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** How many endpoints a tenant may have, unless the stage says otherwise (`webhooks.maxEndpointsPerTenant`). */
export const DEFAULT_MAX_ENDPOINTS_PER_TENANT = 20;
/** The most a stage may allow: a tenant's endpoints are read whole for every event it has. */
export const MAX_ENDPOINTS_PER_TENANT_LIMIT = 100;
/** The longest URL an endpoint may have (held by the schemas; webhook-target.ts says why it is refused). */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** A description is a note for the tenant's operators. */
export const ENDPOINT_DESCRIPTION_MAX_LENGTH = 512;
/**
 * The most collections an endpoint names: its key's readable collections, kept on the endpoint and
 * read with every event of its tenant (a key that reads more holds `provisioning:read`).
 */
export const MAX_ENDPOINT_COLLECTIONS = 100;

/** An endpoint as the API answers it. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  /**
   * The collections whose `provisioning.document.changed` events it receives: those the key that
   * last wrote it may read. Absent: every collection (that key reads them all, or the endpoint was
   * written before collections were kept).
   */
  collections?: string[];
  description: string;
  status: EndpointStatus;
  /** Why a disabled endpoint was disabled, and when (a receiver's 410, 5 days of failures, slow answers, a PATCH). */
  disabledReason?: string;
  createdAt: string;
  updatedAt: string;
}

/** An endpoint as it is kept. */
export interface StoredWebhookEndpoint extends WebhookEndpoint {
  secrets: SigningSecrets;
  /** When the first of the deliveries failing since the last success failed (epoch ms). */
  failingSince?: number;
  /** Attempts in a row its receiver took SLOW_ANSWER_MS or more to answer (retry-schedule.ts). */
  slowAnswers?: number;
  /** When its deliveries were last recovered (epoch ms): the next recover waits out RECOVER_INTERVAL_MS from it. */
  lastRecoverAt?: number;
}

/** What a PATCH may change; `status: 'enabled'` also clears the reason and the failing streak. */
export interface EndpointChange {
  url?: string;
  events?: WebhookEventType[];
  /** The collections of the writing key (`all`: every one); left out, they stay as they were. */
  collections?: readonly string[] | 'all';
  description?: string;
  status?: EndpointStatus;
}

/**
 * A new endpoint id: `ep_` and a ULID, so a tenant's endpoints list in the order they were made.
 *
 * @example newEndpointId(Date.now()) // 'ep_01JDX3Q4S8W0YB6N3M2P5R7T9V'
 */
export function newEndpointId(nowMs: number): string {
  return `ep_${newUlid(nowMs)}`;
}

/**
 * The endpoint as the API shows it: everything but its secrets, its failing streak and its last recover.
 *
 * @example return { status: 200, body: endpointView(stored) };
 */
export function endpointView(stored: StoredWebhookEndpoint): WebhookEndpoint {
  const { id, url, events, collections, description, status, disabledReason, createdAt, updatedAt } = stored;
  return {
    id,
    url,
    events,
    ...(collections !== undefined && { collections }),
    description,
    status,
    ...(status === 'disabled' && disabledReason !== undefined && { disabledReason }),
    createdAt,
    updatedAt,
  };
}

/**
 * What a keyed retry of a registration or a rotation answers in place of the secret. The secret is
 * shown in the first answer only: the idempotency ledger, which keeps that answer for 24 hours and
 * which more functions read, never holds it.
 *
 * @example secretWithheld('/api/v1/webhooks/tenants/acme/endpoints/ep_1/rotate-secret')
 */
export function secretWithheld(rotatePath: string): string {
  return `The signing secret is shown in the first answer to this request only and is not kept to be shown again: if it was lost, POST ${rotatePath} for a new one.`;
}

/**
 * The endpoint after `change` at `at`. Enabling a disabled endpoint starts it afresh (no reason,
 * no failing streak); disabling it by a PATCH gives that as its reason.
 *
 * @example const next = changedEndpoint(stored, { status: 'enabled' }, new Date());
 */
export function changedEndpoint(
  stored: StoredWebhookEndpoint,
  change: EndpointChange,
  at: Date,
): StoredWebhookEndpoint {
  const {
    disabledReason: _reason,
    failingSince: _since,
    slowAnswers: _slow,
    collections: _collections,
    ...rest
  } = stored;
  const status = change.status ?? stored.status;
  const keepsState = status === stored.status;
  const collections = change.collections === undefined ? stored.collections : change.collections;
  return {
    ...rest,
    ...(change.url !== undefined && { url: change.url }),
    ...(change.events !== undefined && { events: change.events }),
    ...(collections !== undefined && collections !== 'all' && { collections: [...collections] }),
    ...(change.description !== undefined && { description: change.description }),
    status,
    ...(keepsState && stored.disabledReason !== undefined && { disabledReason: stored.disabledReason }),
    ...(!keepsState && status === 'disabled' && { disabledReason: `disabled by a PATCH at ${at.toISOString()}` }),
    ...(keepsState && stored.failingSince !== undefined && { failingSince: stored.failingSince }),
    ...(keepsState && stored.slowAnswers !== undefined && { slowAnswers: stored.slowAnswers }),
    updatedAt: at.toISOString(),
  };
}
