/**
 * What identifies "the same request" for an idempotency key (D11): the method, the path (its
 * template and decoded parameters, so percent-encoding variants agree) and the body as JSON. Headers
 * are left out on purpose: a retry may carry a fresh Authorization or trace header.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

export interface FingerprintedRequest {
  method: string;
  pathTemplate: string;
  pathParameters: Record<string, string>;
  body: unknown;
}

export function requestFingerprint(request: FingerprintedRequest): string {
  const text = canonicalJson([request.method, request.pathTemplate, request.pathParameters, request.body ?? null]);
  return createHash('sha256').update(text).digest('base64url');
}
