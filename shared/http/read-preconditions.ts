/**
 * `If-Match` and `If-None-Match` of a document request (D12), parsed; a value that is neither `*`
 * nor a list of entity tags is a 400 that names the header, not a condition silently ignored. A
 * blank value (an empty list) is no condition.
 */
import { parseTagCondition, type Preconditions, type TagCondition } from '#shared/domain/documents/entity-tags';
import { badRequest } from './api-error.ts';
import { findHeader } from './find-header.ts';

/** A DynamoDB condition takes a bounded number of operands; no real client sends more tags. */
const MAX_TAGS = 20;

/** One precondition header; a GET reads If-None-Match alone. */
export function readTagCondition(headers: Record<string, string | undefined>, name: 'If-Match' | 'If-None-Match'): TagCondition | undefined {
  const value = findHeader(headers, name);
  if (value === undefined) return undefined;
  const condition = parseTagCondition(value);
  if (condition === undefined) {
    throw badRequest(`Header '${name}' must be * or a comma-separated list of entity tags as the ETag header gives them, such as "3q2-7wXkR5eQ".`);
  }
  if (condition !== '*' && condition.length > MAX_TAGS) throw badRequest(`Header '${name}' lists more than ${MAX_TAGS} entity tags.`);
  // An empty list names no version: the header is as good as absent.
  return condition === '*' || condition.length > 0 ? condition : undefined;
}

export function readPreconditions(headers: Record<string, string | undefined>): Preconditions {
  return { ifMatch: readTagCondition(headers, 'If-Match'), ifNoneMatch: readTagCondition(headers, 'If-None-Match') };
}
