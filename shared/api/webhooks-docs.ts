/**
 * The webhooks area's operations in the OpenAPI document: their prose and examples, what a reader
 * needs beyond their route entries (webhooks-routes.ts) and the schemas. Every example must validate
 * against its schema (test/contract/openapi-examples.test.ts).
 */
import {
  MAX_RECOVERED_DELIVERIES,
  RECOVER_GROUP_SIZE,
  RECOVER_INTERVAL_MS,
  RECOVER_READ_LIMIT,
} from '#shared/domain/webhooks/recover-limits';
import type { WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import type { SchemaId } from '#shared/schemas/schema-ids';
import { subscriptionDenied } from './api-error.ts';
import { type AreaDocs, error, errorOf, example } from './operation-doc.ts';
import type { webhooksRoutes } from './webhooks-routes.ts';

/** What every recover's answer states of its limits. */
const recoverLimits = {
  read: RECOVER_READ_LIMIT,
  recovered: MAX_RECOVERED_DELIVERIES,
  intervalSeconds: RECOVER_INTERVAL_MS / 1000,
};

const webhookEndpoint = {
  id: 'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H',
  url: 'https://hooks.acme.example/cxm',
  events: ['note.created', 'voc.job.completed', 'voc.job.failed'],
  description: 'Support tooling',
  status: 'enabled',
  createdAt: '2026-01-01T09:00:00.000Z',
  updatedAt: '2026-01-01T09:00:00.000Z',
};

const noEndpoint = {
  absent: example(
    'No such endpoint',
    error('NotFound', "No webhook endpoint 'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H' exists in this tenant."),
  ),
};

const refusedUrl = {
  private: example(
    'A URL a delivery may not reach',
    error('BadRequest', "Field 'url' cannot receive webhooks: 10.0.0.7 is not a public address."),
  ),
  http: example('Not https', error('BadRequest', "Field 'url' cannot receive webhooks: a webhook URL is https.")),
};

/** The refusal of an event whose data the key may not read. */
const unreadableEvent = {
  voc: example(
    'An event the key may not read',
    errorOf(subscriptionDenied('voc.job.completed', 'voc:recordings.read')),
  ),
  documents: example(
    'Document events, and the key reads no collection',
    errorOf(subscriptionDenied('provisioning.document.changed', 'provisioning:{collection}.read')),
  ),
};

const WEBHOOK_SUBSCRIBING =
  'The key must hold the read scope of what each event carries, else 403 naming the event and the scope: `note.created` ' +
  "the note route's `cxm:conversations.write` (the event carries what its 201 answered), `voc.job.completed` and " +
  '`voc.job.failed` `voc:recordings.read`, `provisioning.document.changed` `provisioning:{collection}.read` of one ' +
  'collection at least. Document events then reach the endpoint for the collections the key reads, which its ' +
  '`collections` lists; a key of `provisioning:read` or `provisioning:*` leaves it out: every collection.';

const WEBHOOK_RECEIVING =
  'Deliveries follow Standard Webhooks 1.0: a POST of `{"type", "timestamp", "data"}` with the headers `webhook-id`, ' +
  '`webhook-timestamp` and `webhook-signature`; the API guide shows how a receiver verifies them.';

/**
 * The webhooks area: its tag's description, and each operation's docs.
 *
 * @example webhooksDocs.operations.createWebhookEndpoint.description
 */
export const webhooksDocs: AreaDocs<(typeof webhooksRoutes)[number]['id']> = {
  description:
    "Where the tenant's events are delivered: endpoints, their signing secrets (Standard Webhooks), their deliveries.",
  operations: {
    createWebhookEndpoint: {
      description:
        "Registers an endpoint for the tenant's events and answers its signing secret (`whsec_...`), shown this once. " +
        'The URL must be `https` to a host that resolves to public addresses (a local stack also takes `http` to 127.0.0.1, ' +
        'localhost or [::1]); every delivery checks the resolved address again and follows no redirect. ' +
        "A tenant has at most the stage's number of endpoints (20 unless its operators say otherwise): past it, 409. " +
        'With the same `Idempotency-Key`, a retry answers the first answer with `secretWithheld` in place of the secret, ' +
        'which no answer but the first carries, and registers nothing.\n\n' +
        `${WEBHOOK_SUBSCRIBING}\n\n${WEBHOOK_RECEIVING}`,
      requestExamples: {
        endpoint: example('An endpoint for notes and recordings', {
          url: 'https://hooks.acme.example/cxm',
          events: ['note.created', 'voc.job.completed', 'voc.job.failed'],
          description: 'Support tooling',
        }),
      },
      success: {
        201: {
          description: 'The endpoint is registered; deliveries start with the next event.',
          examples: {
            created: example('The endpoint and its secret', {
              ...webhookEndpoint,
              secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwLlbVqsvMLvk=',
            }),
          },
        },
      },
      errorExamples: {
        400: refusedUrl,
        403: unreadableEvent,
        409: {
          full: example(
            "The tenant's limit of endpoints",
            error(
              'Conflict',
              'This tenant has 20 webhook endpoints, the most it may: delete one it no longer uses (or send more event types to one) first.',
            ),
          ),
        },
      },
    },
    listWebhookEndpoints: {
      description:
        "Every endpoint of the tenant, oldest first, without secrets. The stage's limit keeps the list to one page.",
      success: {
        200: {
          description: 'The endpoints.',
          examples: {
            endpoints: example('One enabled, one disabled', {
              data: [
                webhookEndpoint,
                {
                  ...webhookEndpoint,
                  id: 'ep_01KE3X4M2N8P6Q0R4S7T9V1W3X',
                  url: 'https://old.acme.example/hooks',
                  events: ['provisioning.document.changed'],
                  description: '',
                  status: 'disabled',
                  disabledReason: 'the receiver answered 410 Gone at 2026-01-02T10:00:00.000Z',
                  updatedAt: '2026-01-02T10:00:00.000Z',
                },
              ],
            }),
          },
        },
      },
      errorExamples: {},
    },
    getWebhookEndpoint: {
      description: 'One endpoint, without its secret. A disabled one says why in `disabledReason`.',
      success: {
        200: { description: 'The endpoint.', examples: { endpoint: example('An endpoint', webhookEndpoint) } },
      },
      errorExamples: { 404: noEndpoint },
    },
    updateWebhookEndpoint: {
      description:
        'Changes the fields the body names: `url` (checked as a registration checks it), `events`, `description`, `status`. ' +
        '`status: "enabled"` resumes deliveries to a disabled endpoint, its failures forgotten; `"disabled"` pauses them.\n\n' +
        'Every change, of any field, is checked against the events the endpoint has after it, as a registration is (so a key ' +
        'cannot move or resume an endpoint of events it may not read): ' +
        `${WEBHOOK_SUBSCRIBING} The collections become those of the key that made the change. A pending delivery the ` +
        'endpoint no longer takes (its events or collections changed) is not sent.',
      requestExamples: {
        enable: example('Resume a disabled endpoint', { status: 'enabled' }),
        events: example('Another set of events', { events: ['provisioning.document.changed'] }),
      },
      success: {
        200: {
          description: 'The endpoint as changed.',
          examples: {
            updated: example('Resumed', { ...webhookEndpoint, updatedAt: '2026-01-03T08:00:00.000Z' }),
            documents: example('Document events, by a key that reads two collections', {
              ...webhookEndpoint,
              events: ['provisioning.document.changed'],
              collections: ['bots', 'users'],
              updatedAt: '2026-01-03T08:00:00.000Z',
            }),
          },
        },
      },
      errorExamples: { 400: refusedUrl, 403: unreadableEvent, 404: noEndpoint },
    },
    deleteWebhookEndpoint: {
      description:
        'Deletes the endpoint: nothing more is delivered to it, and its place under the limit is free again. Deleting it again is 404.',
      success: { 204: { description: 'Deleted.', empty: true } },
      errorExamples: { 404: noEndpoint },
    },
    rotateWebhookSecret: {
      description:
        'Makes a new signing secret, shown this once. For 24 hours every delivery is signed with both the new and the replaced ' +
        'secret (the new one first in `webhook-signature`), so the receiver can switch without losing one; after that only the ' +
        'new one signs. A rotation within those 24 hours drops the older secret at once. No body is read. With the same ' +
        '`Idempotency-Key`, a retry answers the first answer with `secretWithheld` in place of the secret, which no answer ' +
        'but the first carries, instead of rotating again.',
      success: {
        200: {
          description: 'The new secret.',
          examples: {
            rotated: example('A rotation', {
              secret: 'whsec_2uC8mO2ZvNfCq5vI9hX0b1kq0aV5mZ3yJk7E4r1wQ6s=',
              previousSecretExpiresAt: '2026-01-04T08:00:00.000Z',
            }),
          },
        },
      },
      errorExamples: { 404: noEndpoint },
    },
    listWebhookDeliveries: {
      description:
        'What became of each message to the endpoint (one per event and endpoint), newest event first, a page at a time: ' +
        '`pending` (an attempt is due at `nextAttemptAt`), `delivered`, or `failed` with `lastError`. The `id` is the ' +
        "`webhook-id` every attempt of the message carries, the receiver's key for deduplication. Deliveries are kept 30 " +
        'days. An endpoint that does not exist (or was deleted) is 404.',
      success: {
        200: {
          description: 'A page of deliveries.',
          examples: {
            page: example('A delivered message and one being retried', {
              data: [
                {
                  id: 'msg_Zk3uA8Qm1pW0sV5dJ2rT7yXcBn',
                  type: 'voc.job.failed',
                  eventAt: '2026-01-02T09:30:00.000Z',
                  status: 'pending',
                  attempts: 2,
                  lastAttemptAt: '2026-01-02T09:30:06.000Z',
                  lastStatus: 503,
                  lastError: 'HTTP 503',
                  nextAttemptAt: '2026-01-02T09:35:06.000Z',
                },
                {
                  id: 'msg_Hq8nC2Lr5tY1oX4bM7vS0wEaGk',
                  type: 'note.created',
                  eventAt: '2026-01-02T09:00:00.000Z',
                  status: 'delivered',
                  attempts: 1,
                  lastAttemptAt: '2026-01-02T09:00:00.400Z',
                  lastStatus: 200,
                  deliveredAt: '2026-01-02T09:00:00.400Z',
                },
              ],
              cursor:
                'eyJ2IjoxLCJiZWZvcmUiOiIyMDI2LTAxLTAyVDA5OjAwOjAwLjAwMFojbXNnX0hxOG5DMkxyNXRZMW9YNGJNN3ZTMHdFYUdrIn0',
            }),
          },
        },
      },
      errorExamples: {
        400: {
          cursor: example(
            'Not a cursor of this list',
            error(
              'BadRequest',
              "Query parameter 'cursor' is not a cursor of this list; take it from the previous page.",
            ),
          ),
        },
        404: noEndpoint,
      },
    },
    recoverWebhookDeliveries: {
      description:
        "Sends the endpoint's failed deliveries again: those of events at or after `since` that ended `failed` are " +
        '`pending` again with their schedule started over, each under its same `webhook-id` (a receiver that deduplicates ' +
        `sees nothing twice), and queued a group of ${RECOVER_GROUP_SIZE} at a time, so a call cut short leaves none pending unsent. ` +
        `Bounded: a call reads at most ${RECOVER_READ_LIMIT} deliveries, oldest first, and makes at most ${MAX_RECOVERED_DELIVERIES} ` +
        'pending again; `more` says it stopped at a limit, and `nextSince` is the `since` to go on from. An endpoint is ' +
        `recovered at most once every ${RECOVER_INTERVAL_MS / 1000} s, counted from each call that passed the endpoint's checks ` +
        '(429 `RateLimitExceeded` with `Retry-After` within it). The endpoint must be enabled (409 otherwise: a disabled ' +
        'endpoint would refuse them at once). Deliveries are kept 30 days.',
      requestExamples: { since: example('Since an outage began', { since: '2026-01-02T08:00:00Z' }) },
      success: {
        202: {
          description: 'The failed deliveries read are pending again, their tasks queued; they are sent from now on.',
          examples: {
            recovered: example('Twelve sent again, nothing left', {
              recovered: 12,
              read: 340,
              more: false,
              nextSince: null,
              limits: recoverLimits,
            }),
            more: example('Stopped at the limit: go on from nextSince in a minute', {
              recovered: MAX_RECOVERED_DELIVERIES,
              read: 612,
              more: true,
              nextSince: '2026-01-02T11:47:03.215Z',
              limits: recoverLimits,
            }),
          },
        },
      },
      errorExamples: {
        404: noEndpoint,
        409: {
          disabled: example(
            'The endpoint is disabled',
            error(
              'Conflict',
              'Webhook endpoint \'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H\' is disabled (the receiver answered 410 Gone: it no longer takes these events (at 2026-01-02T10:00:00.000Z)): enable it (PATCH with "status": "enabled") before recovering its deliveries.',
            ),
          ),
        },
        429: {
          tooSoon: example(
            'Recovered less than a minute ago',
            error(
              'RateLimitExceeded',
              "Webhook endpoint 'ep_01KE3X2J9F6R4T8W1Y3B5D7G0H' was recovered at 2026-01-02T12:00:00.000Z, and an endpoint is recovered at most once every 60 s: recover again from 2026-01-02T12:01:00.000Z (in 38 s).",
            ),
          ),
        },
      },
    },
  },
};

/** One event a tenant's endpoint receives: its body's schema, what it says, and an example. */
export interface WebhookDocs {
  schema: SchemaId;
  summary: string;
  example: unknown;
}

export const webhookDocs: Record<WebhookEventType, WebhookDocs> = {
  'note.created': {
    schema: 'NoteCreatedWebhook',
    summary: 'An internal note was committed (once per note, also when a keyed retry replays its 201)',
    example: {
      type: 'note.created',
      timestamp: '2026-01-02T09:00:00.000Z',
      data: {
        tenantId: 'acme',
        conversationId: 'conv-1002',
        note: {
          id: '01KE3WZ8M7Q2X9D4C6B1N5R0TA',
          createdAt: '2026-01-02T09:00:00.000Z',
          visibility: 'internal',
          author: { type: 'system', id: null, name: 'API' },
        },
      },
    },
  },
  'voc.job.completed': {
    schema: 'VocJobEndedWebhook',
    summary: "A VOC recording's job completed: its row is in the VOC list",
    example: {
      type: 'voc.job.completed',
      timestamp: '2026-01-02T09:12:00.000Z',
      data: {
        tenantId: 'acme',
        job: {
          id: '01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
          status: 'completed',
          started: 1767344400000,
          file: 'recordings/acme/01JF3ZK6Q5V2X8M4N7R9T1W3Y5.wav',
          recordingId: 'rec-01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
          analysis: 'call-analytics',
        },
      },
    },
  },
  'voc.job.failed': {
    schema: 'VocJobEndedWebhook',
    summary: "A VOC recording's job failed, and why",
    example: {
      type: 'voc.job.failed',
      timestamp: '2026-01-02T09:12:00.000Z',
      data: {
        tenantId: 'acme',
        job: {
          id: '01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
          status: 'failed',
          started: 1767344400000,
          file: 'recordings/acme/01JF3ZK6Q5V2X8M4N7R9T1W3Y5.wav',
          recordingId: 'rec-01JF3ZK6Q5V2X8M4N7R9T1W3Y5',
          failureReason: 'The file is not readable audio/wav: it holds no WAVE audio.',
        },
      },
    },
  },
  'provisioning.document.changed': {
    schema: 'DocumentChangedWebhook',
    summary: 'A provisioning document was created, replaced, merged or restored through the API: its new version',
    example: {
      type: 'provisioning.document.changed',
      timestamp: '2026-01-02T09:30:00.000Z',
      data: {
        tenantId: 'acme',
        collection: 'bots',
        documentId: 'bot-billing',
        etag: '"k3Jv0cQ9xT2m"',
        version: 2,
        change: 'merged',
      },
    },
  },
};
