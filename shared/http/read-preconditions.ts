/**
 * `If-Match` and `If-None-Match` of a document request, parsed; a value that is neither `*`
 * nor a list of entity tags is a 400 that names the header, not a condition silently ignored. A
 * blank value (an empty list) is no condition.
 */

import { badRequest } from '#shared/api/api-error';
import { type Preconditions, parseTagCondition, type TagCondition } from '#shared/domain/documents/entity-tags';
import type { ApiRequest } from './api-types.ts';
import { findHeader, findHeaderValues } from './find-header.ts';

/** A DynamoDB condition takes a bounded number of operands; no real client sends more tags. */
const MAX_TAGS = 20;

/** A request's header lines: lines of one list field make one list (RFC 9110 section 5.3). */
type Headers = Pick<ApiRequest['http'], 'headers' | 'multiValueHeaders'>;

/** The most text one condition header may hold: twenty tags with room to spare. */
const MAX_LENGTH = 2048;

/** One precondition header. */
function readTagCondition(http: Headers, name: 'If-Match' | 'If-None-Match'): TagCondition | undefined {
  const lines = findHeaderValues(http.multiValueHeaders, name);
  const value = lines.length > 1 ? lines.join(', ') : findHeader(http.headers, name);
  if (value === undefined) return undefined;
  if (value.length > MAX_LENGTH) throw badRequest(`Header '${name}' is longer than ${MAX_LENGTH} characters.`);
  const condition = parseTagCondition(value);
  if (condition === undefined) {
    throw badRequest(
      `Header '${name}' must be * or a comma-separated list of entity tags as the ETag header gives them, such as "3q2-7wXkR5eQ".`,
    );
  }
  if (condition !== '*' && condition.length > MAX_TAGS)
    throw badRequest(`Header '${name}' lists more than ${MAX_TAGS} entity tags.`);
  // An empty list names no version: the header is as good as absent.
  return condition === '*' || condition.length > 0 ? condition : undefined;
}

export function readPreconditions(http: Headers): Preconditions {
  return { ifMatch: readTagCondition(http, 'If-Match'), ifNoneMatch: readTagCondition(http, 'If-None-Match') };
}
