/**
 * The request headers some operations read (safe retries, conditional requests), as OpenAPI
 * parameters. The rules are the code's: the key's length and alphabet come from the domain module
 * that checks them.
 */

import type { RouteSpec } from '#shared/api/route-spec';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH } from '#shared/domain/idempotency/idempotency-key';
import type { ParameterObject } from './openapi-types.ts';

/** `*` or a comma-separated list of entity tags (RFC 9110 section 13.1.1). */
const ENTITY_TAGS = {
  type: 'string',
  maxLength: 2048,
  // Empty list elements (and a blank value, no condition at all) are allowed, as the list syntax allows them.
  pattern:
    '^\\s*(\\*|((W/)?"[\\x21\\x23-\\x7E\\x80-\\xFF]*")?(\\s*,\\s*((W/)?"[\\x21\\x23-\\x7E\\x80-\\xFF]*")?)*)\\s*$',
} as const;

const idempotencyKey: ParameterObject = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description:
    'Makes the write safe to retry: a unique value per logical request (a UUID, say). The first request with the key runs and its ' +
    'answer is recorded in the same transaction as the write; a retry with the same key and the same request (method, path, JSON ' +
    'body) gets that answer again with `Idempotent-Replayed: true` and writes nothing. The same key with a different request: 422. ' +
    "A request that fails records nothing, so its retry runs afresh. Keys are kept 24 hours (the stage's setting) and scoped to the tenant.",
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x21-\\x7E]+$' },
  example: '5f0c6e0a-8d1e-4a59-9f3b-0e6c2f1d7a44',
};

const ifMatch: ParameterObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'Write only if the current document has one of these ETags (or exists, for `*`); otherwise 412 and nothing is written. ' +
    'Checked by the write itself, so a concurrent change cannot slip between.',
  schema: ENTITY_TAGS,
  example: '"k3Jv0cQ9Tz2Wm8Ld"',
};

const ifNoneMatchWrite: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    '`*`: create only, 412 when the document exists. A list of ETags: write unless the current document has one of them.',
  schema: ENTITY_TAGS,
  example: '*',
};

const ifMatchRead: ParameterObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: "412 unless the document's current ETag is one of these (strong comparison), or it exists, for `*`.",
  schema: ENTITY_TAGS,
  example: '"k3Jv0cQ9Tz2Wm8Ld"',
};

const ifNoneMatchRead: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: "304 without a body when the document's current ETag is one of these (weak comparison), or for `*`.",
  schema: ENTITY_TAGS,
  example: '"k3Jv0cQ9Tz2Wm8Ld"',
};

export function headerParametersOf(route: RouteSpec): ParameterObject[] {
  return [
    ...(route.idempotencyKey ? [idempotencyKey] : []),
    ...(route.preconditions === 'write' ? [ifMatch, ifNoneMatchWrite] : []),
    ...(route.preconditions === 'read' ? [ifMatchRead, ifNoneMatchRead] : []),
  ];
}
