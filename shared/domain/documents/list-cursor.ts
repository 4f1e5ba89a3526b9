/**
 * The provisioning list cursor: opaque to clients, it holds the last document id of the page.
 * It needs no signature: it only says where to resume inside the caller's own collection (the
 * tenant and collection come from the authorised path, never from the cursor).
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
