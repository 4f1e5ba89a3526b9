/** GET .../{collection}/{docId}/versions/current (provisioning documents, conditional requests): the document and the version it is. */

import { notFound, preconditionFailed } from '#shared/api/api-error';
import { noSuchDocument } from '#shared/domain/documents/document-versions';
import { preconditionsHold } from '#shared/domain/documents/entity-tags';
import { createApiHandler } from '#shared/http/create-api-handler';
import { requireStorableDocId } from '#shared/http/document-bounds';
import { versionHeaders } from '#shared/http/document-version-headers';
import { readPreconditions } from '#shared/http/read-preconditions';
import { getCurrentDocument } from '#shared/schemas/route-validators.generated';
import { documentsStore } from '#shared/store/function-stores';

const documents = documentsStore();

export const handler = createApiHandler(getCurrentDocument, async ({ tenantId, path, http }) => {
  const docId = requireStorableDocId(path.docId);
  const { ifMatch, ifNoneMatch } = readPreconditions(http);
  const document = await documents.read(tenantId, path.collection, docId);
  // RFC 9110 section 13.2.2: If-Match first (412, an absent document included), then
  // If-None-Match, which on a GET means 304 Not Modified rather than 412.
  if (!preconditionsHold(document?.etag, { ifMatch })) throw preconditionFailed(path.docId);
  if (document === undefined) throw notFound(noSuchDocument(path));
  const headers = versionHeaders(http.selfUrl, document);
  if (!preconditionsHold(document.etag, { ifNoneMatch })) return { status: 304, bodyText: '', headers };
  return { status: 200, bodyText: document.json, headers };
});
