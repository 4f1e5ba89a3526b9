/**
 * The provisioning lists' cursors, opaque to clients: the documents list's holds the last document
 * id of its page, the versions list's the number its next page starts below. Neither needs a
 * signature: it only says where to resume inside the caller's own collection or document (the
 * tenant, collection and document come from the authorised path, never from the cursor).
 */
import { isStorableDocId } from './document-id.ts';

export function encodeListCursor(afterId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, after: afterId }), 'utf8').toString('base64url');
}

/** The id to resume after, or undefined when the value is not a cursor of ours (or of no storable id). */
export function decodeListCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; after?: unknown };
    const { v, after } = parsed;
    return v === 1 && typeof after === 'string' && after !== '' && isStorableDocId(after) ? after : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The versions list cursor: opaque to clients, it holds the number the next page starts below.
 *
 * @example decodeVersionsCursor(encodeVersionsCursor(41)) // 41
 */
export function encodeVersionsCursor(before: number): string {
  return Buffer.from(JSON.stringify({ v: 1, before }), 'utf8').toString('base64url');
}

/** The number to list below, or undefined when the value is not a versions cursor of ours. */
export function decodeVersionsCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const { v, before } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: unknown;
      before?: unknown;
    };
    return v === 1 && Number.isSafeInteger(before) && Number(before) >= 1 ? Number(before) : undefined;
  } catch {
    return undefined;
  }
}
