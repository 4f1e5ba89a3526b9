/**
 * The provisioning area's operations in the OpenAPI document: their prose and examples, what a reader
 * needs beyond their route entries (provisioning-routes.ts) and the schemas. Every example must
 * validate against its schema (test/contract/openapi-examples.test.ts).
 */
import { DOCUMENT_MAX_BYTES } from '#shared/domain/documents/document-size';
import {
  DEFAULT_VERSION_RETENTION,
  daysToMs,
  goneReason,
  missingReason,
  noSuchDocument,
} from '#shared/domain/documents/document-versions';
import { gone, notFound, payloadTooLarge, preconditionFailed } from './api-error.ts';
import { type AreaDocs, error, errorOf, example } from './operation-doc.ts';
import type { provisioningRoutes } from './provisioning-routes.ts';

const billingBot = {
  name: 'Billing helper',
  language: 'en',
  channels: ['chat', 'email'],
  escalation: { queue: 'billing', afterMinutes: 5 },
};

const documentTooLarge = {
  stored: example(
    'The stored document would pass 350 KB',
    errorOf(payloadTooLarge(DOCUMENT_MAX_BYTES, 'The document, as compact JSON,')),
  ),
};

const documentErrors = {
  notObject: example('Not a JSON object', error('BadRequest', 'The request body must be a JSON object.')),
  collection: example(
    'Malformed collection',
    error(
      'BadRequest',
      "'collection' must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
    ),
  ),
  preconditionFailed: example('The document changed since it was read', errorOf(preconditionFailed('bot-billing'))),
};

/** The retention a stage keeps unless its operators say otherwise, as the descriptions state it. */
const RETENTION_NOTE =
  `the last ${DEFAULT_VERSION_RETENTION.keep} versions of each document, each for ` +
  `${DEFAULT_VERSION_RETENTION.maxAgeMs / daysToMs(1)} days after it was made, unless its operators set otherwise`;

/** What a version number can name instead of a version. */
const versionErrors = {
  version: example(
    'Not a version number',
    error('BadRequest', "'version' must be a version number: a whole number from 1, without leading zeros."),
  ),
  absent: example(
    'No such document',
    errorOf(notFound(missingReason({ collection: 'bots', docId: 'bot-sales' }, 3, undefined))),
  ),
  notYet: example(
    'A number past the newest version',
    errorOf(notFound(missingReason({ collection: 'bots', docId: 'bot-billing' }, 9, 4))),
  ),
  gone: example('A version the retention removed', errorOf(gone(goneReason(3, DEFAULT_VERSION_RETENTION)))),
};

/**
 * The provisioning area: its tag's description, and each operation's docs.
 *
 * @example provisioningDocs.operations.listDocuments.description
 */
export const provisioningDocs: AreaDocs<(typeof provisioningRoutes)[number]['id']> = {
  description:
    "Tenant-scoped collections of arbitrary JSON documents, each with a 'current' version and the numbered versions kept before it.",
  operations: {
    listDocuments: {
      description:
        'Lists the documents of a collection as `{id, data}` entries ordered by id, at most `limit` per page. ' +
        'When more remain, the response carries a `Link` header (RFC 8288) with `rel="next"`; follow it as it is. ' +
        'A page may hold fewer entries than `limit` when it would pass the response size bound.',
      success: {
        200: {
          description: 'One page of the collection; `Link` names the next one when more remain.',
          headers: ['Link'],
          examples: {
            page: example('A page of two bots', [
              { id: 'bot-billing', data: billingBot },
              { id: 'bot-returns', data: { name: 'Returns assistant', language: 'de', channels: ['chat'] } },
            ]),
            empty: example('An empty collection', []),
          },
        },
      },
      errorExamples: {
        400: {
          limit: example(
            'Bad limit',
            error('BadRequest', "Query parameter 'limit' must be a whole number from 1 to 1000."),
          ),
          collection: documentErrors.collection,
        },
      },
    },

    getCurrentDocument: {
      description:
        "Reads the document's current version: the JSON object exactly as it was stored, with its `ETag` and " +
        '`Content-Location`, the URL of this version by its number (`versions/{n}`), which keeps naming it after later writes. ' +
        'With `If-None-Match` naming that ETag (or `*`), the answer is 304 without a body: your copy is current. ' +
        '`If-Match` makes the read fail with 412 unless the document is still at one of the named ETags.',
      success: {
        200: {
          description: 'The document.',
          headers: ['ETag', 'Content-Location'],
          examples: { bot: example('A bot', billingBot) },
        },
        304: {
          description: "Not modified: `If-None-Match` names the document's current ETag. No body.",
          headers: ['ETag', 'Content-Location'],
          empty: true,
        },
      },
      errorExamples: {
        400: { collection: documentErrors.collection },
        404: {
          absent: example(
            'No such document',
            errorOf(notFound(noSuchDocument({ collection: 'bots', docId: 'bot-sales' }))),
          ),
        },
        412: { changed: documentErrors.preconditionFailed },
      },
    },

    replaceCurrentDocument: {
      description:
        "Creates the document's current version (201), or replaces it as a whole (200): no merge. " +
        'The stored document is at most 350 KB as compact JSON (else 413). Answers the stored document, its new `ETag` and ' +
        "`Content-Location` (the new version's own URL, `versions/{n}`). " +
        '`If-Match: <ETag>` replaces only that version and `If-None-Match: *` only creates (else 412, nothing written).',
      requestExamples: { bot: example('A bot', billingBot) },
      success: {
        201: {
          description: 'The document was created.',
          headers: ['ETag', 'Content-Location'],
          examples: { bot: example('The stored bot', billingBot) },
        },
        200: {
          description: 'The document was replaced.',
          headers: ['ETag', 'Content-Location'],
          examples: { bot: example('The stored bot', billingBot) },
        },
      },
      errorExamples: {
        400: { notObject: documentErrors.notObject, collection: documentErrors.collection },
        412: { changed: documentErrors.preconditionFailed },
        413: documentTooLarge,
      },
    },

    mergeCurrentDocument: {
      description:
        "Applies a JSON Merge Patch (RFC 7396) to the document's current version: objects merge recursively, " +
        '`null` deletes a member, arrays replace. Concurrent merges never lose an update. Answers the merged document, its new ' +
        "`ETag` and `Content-Location` (the new version's own URL, `versions/{n}`). `If-Match: <ETag>` merges only into that " +
        'version (else 412, nothing written).',
      requestExamples: {
        patch: example('Change the queue, drop the language', { escalation: { queue: 'billing-eu' }, language: null }),
      },
      success: {
        200: {
          description: 'The merged document.',
          headers: ['ETag', 'Content-Location'],
          examples: {
            merged: example('The merged bot', {
              name: 'Billing helper',
              channels: ['chat', 'email'],
              escalation: { queue: 'billing-eu', afterMinutes: 5 },
            }),
          },
        },
      },
      errorExamples: {
        400: { notObject: documentErrors.notObject },
        404: {
          absent: example(
            'No such document',
            error(
              'NotFound',
              `${noSuchDocument({ collection: 'bots', docId: 'bot-sales' }).slice(0, -1)}; create it with POST.`,
            ),
          ),
        },
        412: { changed: documentErrors.preconditionFailed },
        413: documentTooLarge,
      },
    },

    listDocumentVersions: {
      description:
        "Lists the document's versions the stage keeps, newest first, the current one included: each one's `version` number " +
        '(1, 2, 3... per document, without gaps), `createdAt`, `etag` (quoted, as the `ETag` header gives it), `bytes`, `change` ' +
        '(`created`, `replaced`, `merged` or `restored`) and the `keyId` of the API key that made it (never the key; absent for ' +
        "an operator's import and for the state a document had when versions began to be kept). The stage keeps " +
        `${RETENTION_NOTE}. At most \`limit\` per page; when more remain, the response carries a \`Link\` header ` +
        '(RFC 8288) with `rel="next"`; follow it as it is. The list is read from an index that may trail a write by a ' +
        'moment: a version made an instant ago can be missing below the current one, which is always listed.',
      success: {
        200: {
          description: 'One page of the versions kept, newest first; `Link` names the next one when more remain.',
          headers: ['Link'],
          examples: {
            page: example('A restore, a merge and the state before versions were kept', [
              {
                version: 3,
                createdAt: '2026-01-03T08:00:00.000Z',
                etag: '"Qm7Lr2Xv9Tb4Nc8W"',
                bytes: 119,
                change: 'restored',
                keyId: 'k7q2m9x4w1z8',
              },
              {
                version: 2,
                createdAt: '2026-01-02T09:30:00.000Z',
                etag: '"k3Jv0cQ9Tz2Wm8Ld"',
                bytes: 106,
                change: 'merged',
                keyId: 'k7q2m9x4w1z8',
              },
              {
                version: 1,
                createdAt: '2026-01-01T09:00:00.000Z',
                etag: '"Hc5Yp1Rw8Ks3Vd0F"',
                bytes: 119,
                change: 'created',
              },
            ]),
          },
        },
      },
      errorExamples: {
        400: {
          limit: example(
            'Bad limit',
            error('BadRequest', "Query parameter 'limit' must be a whole number from 1 to 100."),
          ),
          cursor: example(
            'Not a cursor of this list',
            error(
              'BadRequest',
              "Query parameter 'cursor' is not a cursor of this API; take it from the Link header of the previous page.",
            ),
          ),
        },
        404: { absent: versionErrors.absent },
      },
    },

    getDocumentVersion: {
      description:
        'Reads one version of the document by its number: the JSON object exactly as that write stored it, with its `ETag` and ' +
        '`Content-Location` (this URL). A version never changes, so the answer carries `Cache-Control: private, ' +
        'max-age=31536000, immutable` rather than `no-store`: keep it as long as you like. With `If-None-Match` naming its ETag ' +
        '(or `*`), the answer is 304 without a body; `If-Match` makes the read fail with 412 unless the version has one of the ' +
        'named ETags.\n\n' +
        'A number past the newest version is 404, and so is a document that does not exist. A version the retention removed ' +
        `is 410 (code \`NotFound\`): gone for good. The stage keeps ${RETENTION_NOTE}; the current ` +
        'version is always readable. `versions/current` is a route of its own, not a number.',
      success: {
        200: {
          description: "The version's document; `Content-Location` is its own URL.",
          headers: ['ETag', 'Content-Location', 'Cache-Control'],
          examples: { bot: example('Version 1 of a bot', billingBot) },
        },
        304: {
          description: "Not modified: `If-None-Match` names the version's ETag. No body.",
          headers: ['ETag', 'Content-Location', 'Cache-Control'],
          empty: true,
        },
      },
      errorExamples: {
        400: { version: versionErrors.version },
        404: { absent: versionErrors.absent, notYet: versionErrors.notYet },
        410: { gone: versionErrors.gone },
        412: { changed: documentErrors.preconditionFailed },
      },
    },

    restoreDocumentVersion: {
      description:
        "Makes version `version` the document's current content again: a new version (the next number, `change: restored`) " +
        "holding exactly that version's document, written as any write is. No body. Answers 200 with the document, its new " +
        "`ETag` and `Content-Location` (the new version's URL), and the tenant's webhooks hear " +
        '`provisioning.document.changed` with `change: restored`.\n\n' +
        "`If-Match` names the document's current ETag: the restore happens only over that version (else 412, nothing " +
        'written). With the same `Idempotency-Key`, a retry answers the first answer and restores nothing more. A number past ' +
        'the newest version, or no document, is 404; a version the retention removed is 410 (code `NotFound`).',
      success: {
        200: {
          description: "The document as restored; `Content-Location` is the new version's URL.",
          headers: ['ETag', 'Content-Location'],
          examples: { bot: example('The restored bot', billingBot) },
        },
      },
      errorExamples: {
        400: { version: versionErrors.version },
        404: { absent: versionErrors.absent, notYet: versionErrors.notYet },
        410: { gone: versionErrors.gone },
        412: { changed: documentErrors.preconditionFailed },
      },
    },
  },
};
