import { badRequest } from '#shared/api/api-error';
import { isStorableDocId, MAX_DOC_ID_BYTES } from '#shared/domain/documents/document-id';

/** 400 for a docId no document can have, on every document route alike (not 404 on some). */
export function requireStorableDocId(docId: string): string {
  if (!isStorableDocId(docId))
    throw badRequest(`'docId' is too long to store: at most ${MAX_DOC_ID_BYTES} bytes of UTF-8.`);
  return docId;
}
