/**
 * RFC 9110 preconditions on a document as a DynamoDB condition, so they are checked by the
 * write itself, never by a read before it. The same rule in code is `preconditionsHold`
 * (shared/domain/documents/entity-tags.ts): the store uses it to tell a failed precondition from
 * another failed condition.
 *
 * A document written before entity tags existed has no `etag` attribute; its tag is `v<version>`
 * (see `etagOf`), and a condition on such a tag is a condition on its version.
 */
import type { EntityTag, Preconditions } from '#shared/domain/documents/entity-tags';

export interface ConditionPart {
  /** Conditions that must all hold, each a whole expression (DynamoDB refuses redundant parentheses, so join with `allOf`). */
  terms: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Exactly the tags `etagOf` gives an untagged document (no leading zero, a safe integer); any other value is opaque. */
const LEGACY_TAG = /^v([1-9]\d{0,14})$/;

/** The entity tag of a stored document item. */
export function etagOf(item: Record<string, unknown>): string {
  return typeof item.etag === 'string' ? item.etag : `v${String(item.version)}`;
}

/** Undefined when there is no precondition. */
export function preconditionExpression(preconditions: Preconditions): ConditionPart | undefined {
  const terms: string[] = [];
  const values: Record<string, unknown> = {};
  /** One of the tags, as one expression to parenthesise (a single comparison needs no parentheses of its own). */
  const anyOf = (tags: EntityTag[], prefix: string) => {
    const alternatives = tags.map((tag, index) => {
      const legacy = LEGACY_TAG.exec(tag.opaque);
      const name = `:${prefix}${index}`;
      values[name] = legacy ? Number(legacy[1]) : tag.opaque;
      return legacy ? `attribute_not_exists(#etag) AND #version = ${name}` : `#etag = ${name}`;
    });
    return alternatives.length === 1
      ? alternatives[0]!
      : alternatives.map((alternative) => `(${alternative})`).join(' OR ');
  };
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch === '*') terms.push('attribute_exists(pk)');
  else if (ifMatch !== undefined) {
    // Strong comparison: a weak tag matches nothing.
    const strong = ifMatch.filter((tag) => !tag.weak);
    terms.push(
      strong.length > 0
        ? `attribute_exists(pk) AND (${anyOf(strong, 'm')})`
        : 'attribute_exists(pk) AND attribute_not_exists(pk)',
    );
  }
  if (ifNoneMatch === '*') terms.push('attribute_not_exists(pk)');
  else if (ifNoneMatch !== undefined) terms.push(`attribute_not_exists(pk) OR NOT (${anyOf(ifNoneMatch, 'n')})`);
  if (terms.length === 0) return undefined;
  return { terms, names: { '#etag': 'etag', '#version': 'version' }, values };
}

/** Conditions joined by AND, each parenthesised once when there are several. */
export function allOf(terms: string[]): string | undefined {
  if (terms.length <= 1) return terms[0];
  return terms.map((term) => `(${term})`).join(' AND ');
}
