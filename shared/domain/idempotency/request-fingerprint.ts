/**
 * What identifies "the same request" for an idempotency key: the method, the path (its
 * template and decoded parameters, so percent-encoding variants agree), the body as JSON, and the
 * request's preconditions (If-Match, If-None-Match, parsed): a write conditional on another version
 * is another request. Other headers are left out on purpose: a retry may carry a fresh
 * Authorization or trace header.
 */
import { createHash } from 'node:crypto';
import type { Preconditions } from '#shared/domain/documents/entity-tags';
import { canonicalJson } from './canonical-json.ts';

export interface FingerprintedRequest {
  method: string;
  pathTemplate: string;
  pathParameters: Record<string, string>;
  body: unknown;
  preconditions?: Preconditions;
}

export function requestFingerprint(request: FingerprintedRequest): string {
  const { ifMatch, ifNoneMatch } = request.preconditions ?? {};
  // Added only when there are any, so a request without them keeps the fingerprint it always had
  // (records written before preconditions counted still replay).
  const conditions =
    ifMatch === undefined && ifNoneMatch === undefined
      ? []
      : [{ ifMatch: ifMatch ?? null, ifNoneMatch: ifNoneMatch ?? null }];
  const text = canonicalJson([
    request.method,
    request.pathTemplate,
    request.pathParameters,
    request.body ?? null,
    ...conditions,
  ]);
  return createHash('sha256').update(text).digest('base64url');
}
