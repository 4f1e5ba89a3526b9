/**
 * Entity tags of provisioning documents and the preconditions on them (RFC 9110 sections 8.8.3 and
 * 13.1). A document's tag is an opaque token drawn afresh by every write, so it changes on every
 * change (a write of identical content included), and is known before the write commits: a
 * transaction can record the response that carries it.
 */
import { randomBytes } from 'node:crypto';

export interface EntityTag {
  /** The opaque part, without quotes. */
  opaque: string;
  weak: boolean;
}

/** `*` (any current representation) or a list of tags. */
export type TagCondition = '*' | EntityTag[];

export interface Preconditions {
  ifMatch?: TagCondition;
  ifNoneMatch?: TagCondition;
}

/** 96 random bits, URL-safe: collision-free in practice and cheap to compare. */
export function newEntityTag(): string {
  return randomBytes(12).toString('base64url');
}

/** The strong `ETag` header value of a tag. */
export function formatEntityTag(opaque: string): string {
  return `"${opaque}"`;
}

// One list element: an entity-tag ( [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E /
// obs-text ) or nothing, then a comma or the end. Empty elements are allowed (RFC 9110 section 5.6.1).
const LIST_ELEMENT = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/y;

/**
 * An `If-Match` / `If-None-Match` value: `*` or a comma-separated list of entity tags, possibly
 * empty (`#entity-tag` allows it: a client with no tag to send may send the header blank).
 * Undefined when it is neither.
 */
export function parseTagCondition(value: string): TagCondition | undefined {
  const trimmed = value.trim();
  if (trimmed === '*') return '*';
  const tags: EntityTag[] = [];
  for (let index = 0; index < trimmed.length; ) {
    LIST_ELEMENT.lastIndex = index;
    const match = LIST_ELEMENT.exec(trimmed);
    if (!match || match[0] === '') return undefined;
    if (match[2] !== undefined) tags.push({ opaque: match[2], weak: match[1] !== undefined });
    index = LIST_ELEMENT.lastIndex;
  }
  return tags;
}

/** Strong comparison (If-Match): both strong and the same opaque tag. */
const strongMatch = (current: string, tags: EntityTag[]) => tags.some((tag) => !tag.weak && tag.opaque === current);
/** Weak comparison (If-None-Match): the same opaque tag, weak or not. */
const weakMatch = (current: string, tags: EntityTag[]) => tags.some((tag) => tag.opaque === current);

/**
 * Whether a write may proceed on a document whose current tag is `current` (undefined: no
 * document), per RFC 9110 section 13.2.2: If-Match first, then If-None-Match.
 */
export function preconditionsHold(current: string | undefined, preconditions: Preconditions): boolean {
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch !== undefined && (current === undefined || (ifMatch !== '*' && !strongMatch(current, ifMatch))))
    return false;
  if (ifNoneMatch !== undefined && current !== undefined && (ifNoneMatch === '*' || weakMatch(current, ifNoneMatch)))
    return false;
  return true;
}
