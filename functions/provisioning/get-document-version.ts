/** GET .../{collection}/{docId}/versions/{version}: one version, which never changes (provisioning documents, history). */

import { gone, notFound, preconditionFailed } from '#shared/api/api-error';
import { goneReason, missingReason } from '#shared/domain/documents/document-versions';
import { preconditionsHold } from '#shared/domain/documents/entity-tags';
import { createApiHandler } from '#shared/http/create-api-handler';
import { requireStorableDocId } from '#shared/http/document-bounds';
import { versionHeaders } from '#shared/http/document-version-headers';
import { readPreconditions } from '#shared/http/read-preconditions';
import { getDocumentVersion } from '#shared/schemas/route-validators.generated';
import { documentsStore } from '#shared/store/function-stores';

const documents = documentsStore();

/** A version's bytes never change: a client may keep them for as long as it likes. */
const IMMUTABLE = 'private, max-age=31536000, immutable';

export const handler = createApiHandler(getDocumentVersion, async ({ tenantId, path, http, signal }) => {
  const docId = requireStorableDocId(path.docId);
  const n = Number(path.version);
  const { ifMatch, ifNoneMatch } = readPreconditions(http);
  const read = await documents.readVersion(tenantId, path.collection, docId, n, signal);
  const found = read.kind === 'found' ? read.version : undefined;
  if (!preconditionsHold(found?.etag, { ifMatch })) throw preconditionFailed(path.docId);
  if (read.kind === 'gone') throw gone(goneReason(n, read.retention));
  if (read.kind === 'not-yet') throw notFound(missingReason(path, n, read.newest));
  const headers = {
    ...versionHeaders(http.selfUrl, { etag: read.version.etag, version: n }),
    'Cache-Control': IMMUTABLE,
  };
  if (!preconditionsHold(read.version.etag, { ifNoneMatch })) return { status: 304, bodyText: '', headers };
  return { status: 200, bodyText: read.version.json, headers };
});
