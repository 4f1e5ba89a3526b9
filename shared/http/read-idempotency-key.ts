/**
 * The chain's step for the routes that accept `Idempotency-Key`: checks the header (400) and
 * turns it into a claim, the key plus the fingerprint of this request, for the handler to record
 * its answer under. Runs after body validation: the fingerprint is of the parsed body and the parsed
 * preconditions, so a retry that spells the same JSON or the same tags differently is still the
 * same request, and one conditional on another version is not.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { badRequest } from '#shared/api/api-error';
import type { RouteSpec } from '#shared/api/route-spec';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyProblem } from '#shared/domain/idempotency/idempotency-key';
import { requestFingerprint } from '#shared/domain/idempotency/request-fingerprint';
import type { ChainEvent } from './api-types.ts';
import { findHeader, findHeaderValues } from './find-header.ts';
import { readPreconditions } from './read-preconditions.ts';

export function readIdempotencyKey(route: RouteSpec): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return {
    before: ({ event }) => {
      const key = findHeader(event.headers, IDEMPOTENCY_KEY_HEADER);
      if (key === undefined || !event.cxm) return;
      // Two keys on one request: which one would a retry send? Refuse rather than pick.
      if (findHeaderValues(event.multiValueHeaders, IDEMPOTENCY_KEY_HEADER).length > 1) {
        throw badRequest(`Header '${IDEMPOTENCY_KEY_HEADER}' is given more than once; send one key per request.`);
      }
      const problem = idempotencyKeyProblem(key);
      if (problem) throw badRequest(problem);
      const fingerprint = requestFingerprint({
        method: event.httpMethod,
        pathTemplate: route.path,
        pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
        body: event.cxm.body,
        ...(route.preconditions && {
          preconditions: readPreconditions({
            headers: event.headers,
            multiValueHeaders: event.multiValueHeaders ?? {},
          }),
        }),
      });
      event.cxm.idempotency = { key, fingerprint };
    },
  };
}
