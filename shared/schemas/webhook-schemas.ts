/** Tenant webhook endpoints: their path, the create and change bodies, and what the API answers. */

import {
  MAX_RECOVERED_DELIVERIES,
  RECOVER_INTERVAL_MS,
  RECOVER_MAX_PAGES,
  RECOVER_PAGE_SIZE,
  RECOVER_READ_LIMIT,
} from '#shared/domain/webhooks/recover-limits';
import { DELIVERY_STATUSES } from '#shared/domain/webhooks/webhook-delivery';
import {
  ENDPOINT_DESCRIPTION_MAX_LENGTH,
  ENDPOINT_STATUSES,
  MAX_ENDPOINT_COLLECTIONS,
  MAX_ENDPOINTS_PER_TENANT_LIMIT,
  WEBHOOK_URL_MAX_LENGTH,
} from '#shared/domain/webhooks/webhook-endpoint';
import { WEBHOOK_EVENT_TYPES } from '#shared/domain/webhooks/webhook-events';
import { collectionParam, pageTokenParam, resourceIdParam, tenantIdParam } from './identifiers.ts';

export const WebhookEndpointPath = {
  $id: 'WebhookEndpointPath',
  type: 'object',
  required: ['tenantId', 'endpointId'],
  additionalProperties: false,
  properties: { tenantId: tenantIdParam, endpointId: resourceIdParam },
} as const;

const url = {
  type: 'string',
  format: 'uri',
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description:
    'Where deliveries are POSTed: `https` to a host that resolves to public addresses (on a local stack also `http` to 127.0.0.1, localhost or [::1]). Checked when registered and again, on the resolved address, at every attempt; redirects are not followed.',
} as const;

const events = {
  type: 'array',
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  description: 'The event types delivered to this endpoint.',
} as const;

/** Text without control characters but tab and line breaks. */
const PLAIN_TEXT = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$';

const description = {
  type: 'string',
  maxLength: ENDPOINT_DESCRIPTION_MAX_LENGTH,
  pattern: PLAIN_TEXT,
  description: "A note for the tenant's operators.",
} as const;

const secret = {
  type: 'string',
  maxLength: 100,
  pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
  description:
    'The signing secret (Standard Webhooks: `whsec_` and the base64 of 32 random bytes). Shown here only: keep it where the receiver can read it.',
} as const;

const secretWithheld = {
  type: 'string',
  maxLength: 400,
  pattern: PLAIN_TEXT,
  description:
    'In place of `secret` in the answer to a keyed retry (`Idempotent-Replayed: true`): the secret is shown in the first answer only, and this says how to get a new one.',
} as const;

export const CreateWebhookEndpointBody = {
  $id: 'CreateWebhookEndpointBody',
  type: 'object',
  required: ['url', 'events'],
  additionalProperties: false,
  properties: { url, events, description },
} as const;

export const UpdateWebhookEndpointBody = {
  $id: 'UpdateWebhookEndpointBody',
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    url,
    events,
    description,
    status: {
      type: 'string',
      enum: [...ENDPOINT_STATUSES],
      description:
        '`enabled` resumes deliveries to a disabled endpoint (its failures forgotten); `disabled` pauses them.',
    },
  },
} as const;

/** An instant as the API writes it (ISO 8601, UTC). */
const instant = { type: 'string', format: 'date-time', maxLength: 30 } as const;

const endpointProperties = {
  id: { ...resourceIdParam, description: 'The endpoint id (`ep_` and a ULID).' },
  url: { type: 'string', format: 'uri', maxLength: WEBHOOK_URL_MAX_LENGTH },
  events: {
    type: 'array',
    maxItems: WEBHOOK_EVENT_TYPES.length,
    items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  },
  collections: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_ENDPOINT_COLLECTIONS,
    uniqueItems: true,
    items: collectionParam,
    description:
      'Present when `provisioning.document.changed` reaches this endpoint for some collections only: those the key that last ' +
      'created or changed it may read (`provisioning:<collection>.read` or `provisioning:<collection>.*`). Absent, every ' +
      'collection: that key holds `provisioning:read` or `provisioning:*`, or the endpoint was written before collections were kept.',
  },
  description: { type: 'string', maxLength: ENDPOINT_DESCRIPTION_MAX_LENGTH, pattern: PLAIN_TEXT },
  status: { type: 'string', enum: [...ENDPOINT_STATUSES] },
  disabledReason: {
    type: 'string',
    maxLength: 1024,
    pattern: PLAIN_TEXT,
    description:
      'Present only when `status` is `disabled`: why (the receiver answered 410, deliveries failed for 5 days, its answers were slow 20 times in a row, or a PATCH) and when.',
  },
  createdAt: instant,
  updatedAt: instant,
} as const;

const endpointRequired = ['id', 'url', 'events', 'description', 'status', 'createdAt', 'updatedAt'] as const;

export const WebhookEndpoint = {
  $id: 'WebhookEndpoint',
  type: 'object',
  required: [...endpointRequired],
  additionalProperties: false,
  properties: endpointProperties,
} as const;

export const CreatedWebhookEndpoint = {
  $id: 'CreatedWebhookEndpoint',
  type: 'object',
  required: [...endpointRequired],
  additionalProperties: false,
  properties: { ...endpointProperties, secret, secretWithheld },
} as const;

export const WebhookEndpointList = {
  $id: 'WebhookEndpointList',
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: {
    data: {
      type: 'array',
      maxItems: MAX_ENDPOINTS_PER_TENANT_LIMIT,
      items: {
        type: 'object',
        required: [...endpointRequired],
        additionalProperties: false,
        properties: endpointProperties,
      },
      description: "Every endpoint of the tenant, oldest first (a stage's limit keeps the list short).",
    },
  },
} as const;

export const RotatedWebhookSecret = {
  $id: 'RotatedWebhookSecret',
  type: 'object',
  required: ['previousSecretExpiresAt'],
  additionalProperties: false,
  properties: {
    secret,
    secretWithheld,
    previousSecretExpiresAt: {
      ...instant,
      description:
        'Until then every delivery is signed with both secrets, the new one first; after it, with the new one only.',
    },
  },
} as const;

/** A page of the deliveries list: 1 to 100 in digits. */
export const DEFAULT_DELIVERY_LIMIT = 50;
export const MAX_DELIVERY_LIMIT = 100;

export const ListWebhookDeliveriesQuery = {
  $id: 'ListWebhookDeliveriesQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      maxLength: 3,
      pattern: '^(?:[1-9][0-9]?|100)$',
      description: `Page size, 1 to ${MAX_DELIVERY_LIMIT} (default ${DEFAULT_DELIVERY_LIMIT}).`,
    },
    cursor: pageTokenParam("The previous page's `cursor`."),
  },
} as const;

export const WebhookDeliveryList = {
  $id: 'WebhookDeliveryList',
  type: 'object',
  required: ['data', 'cursor'],
  additionalProperties: false,
  properties: {
    data: {
      type: 'array',
      maxItems: MAX_DELIVERY_LIMIT,
      description: 'The deliveries, newest event first (kept 30 days).',
      items: {
        type: 'object',
        required: ['id', 'type', 'eventAt', 'status', 'attempts'],
        additionalProperties: false,
        properties: {
          id: {
            type: 'string',
            maxLength: 100,
            pattern: '^[A-Za-z0-9_-]+$',
            description: 'The message id: the `webhook-id` of every attempt.',
          },
          type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
          eventAt: { ...instant, description: 'When the event happened.' },
          status: {
            type: 'string',
            enum: [...DELIVERY_STATUSES],
            description: '`pending` (an attempt is due), `delivered` (a 2xx came back) or `failed` (see `lastError`).',
          },
          attempts: {
            type: 'integer',
            format: 'int32',
            minimum: 0,
            maximum: 100,
            description: 'Attempts made so far.',
          },
          lastAttemptAt: instant,
          lastStatus: {
            type: 'integer',
            format: 'int32',
            minimum: 100,
            maximum: 599,
            description: "The receiver's last status.",
          },
          lastError: {
            type: 'string',
            maxLength: 1024,
            pattern: PLAIN_TEXT,
            description: 'What the last failed attempt came to, or why the delivery stopped.',
          },
          nextAttemptAt: { ...instant, description: 'When the next attempt is due, while pending after a failure.' },
          deliveredAt: instant,
        },
      },
    },
    cursor: {
      type: ['string', 'null'],
      maxLength: 512,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'Pass it as `cursor` for the next (older) page; `null` on the last page.',
    },
  },
} as const;

/** An instant in UTC as `since` takes it, and as `nextSince` gives it back. */
const UTC_INSTANT = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z$';

export const RecoverWebhookDeliveriesBody = {
  $id: 'RecoverWebhookDeliveriesBody',
  type: 'object',
  required: ['since'],
  additionalProperties: false,
  properties: {
    since: {
      type: 'string',
      format: 'date-time',
      maxLength: 30,
      pattern: UTC_INSTANT,
      description:
        'The deliveries of events at or after this instant (UTC, `Z`) that failed are sent again. After an answer with `more`, its `nextSince`.',
    },
  },
} as const;

const RECOVER_INTERVAL_SECONDS = RECOVER_INTERVAL_MS / 1000;

/** An integer the answer always states the same (bounded too, as every integer of the API is). */
const fixedInteger = <V extends number, D extends string>(value: V, description: D) =>
  ({ type: 'integer', format: 'int32', const: value, minimum: value, maximum: value, description }) as const;

export const RecoveredWebhookDeliveries = {
  $id: 'RecoveredWebhookDeliveries',
  type: 'object',
  required: ['recovered', 'read', 'more', 'nextSince', 'limits'],
  additionalProperties: false,
  description: `One recover reads at most ${RECOVER_READ_LIMIT} of the endpoint's deliveries (${RECOVER_MAX_PAGES} pages of ${RECOVER_PAGE_SIZE}) and makes at most ${MAX_RECOVERED_DELIVERIES} of them pending again; an endpoint is recovered at most once every ${RECOVER_INTERVAL_SECONDS} s (429 with \`Retry-After\` within it).`,
  properties: {
    recovered: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: MAX_RECOVERED_DELIVERIES,
      description:
        'How many failed deliveries are pending again, their schedule started over, each already queued to be sent.',
    },
    read: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: RECOVER_READ_LIMIT,
      description: "How many of the endpoint's deliveries since `since` this call read, failed or not.",
    },
    more: {
      type: 'boolean',
      description: `Whether the call stopped at a limit (${RECOVER_READ_LIMIT} read or ${MAX_RECOVERED_DELIVERIES} recovered) before the last delivery: recover again, after ${RECOVER_INTERVAL_SECONDS} s, with \`nextSince\` as \`since\`.`,
    },
    nextSince: {
      type: ['string', 'null'],
      format: 'date-time',
      maxLength: 30,
      pattern: UTC_INSTANT,
      description:
        'The `since` of the next recover while `more` (the event time of the last delivery read); `null` when nothing remains.',
    },
    limits: {
      type: 'object',
      required: ['read', 'recovered', 'intervalSeconds'],
      additionalProperties: false,
      description: 'What one recover may do, and how often.',
      properties: {
        read: fixedInteger(RECOVER_READ_LIMIT, 'The most deliveries a call reads.'),
        recovered: fixedInteger(MAX_RECOVERED_DELIVERIES, 'The most deliveries a call makes pending again.'),
        intervalSeconds: fixedInteger(
          RECOVER_INTERVAL_SECONDS,
          'The least time between two recovers of one endpoint; within it a recover is 429 with `Retry-After`.',
        ),
      },
    },
  },
} as const;
