/**
 * The headers that name a document's version in an answer: its `ETag`, and `Content-Location`, the
 * URL of the version itself (`.../versions/{n}`), which stays the same document for as long as the
 * stage keeps it, where `versions/current` moves on with every write.
 */
import { formatEntityTag } from '#shared/domain/documents/entity-tags';
import type { ApiResult } from './api-types.ts';

const VERSIONS_SEGMENT = '/versions/';

/**
 * The headers of version `version` (ETag unquoted, as the store keeps it), for an answer to a
 * request on `selfUrl`: any URL under the document's `versions/`.
 *
 * @example versionHeaders('https://h/api/v1/provisioning/tenants/t/bots/b/versions/current', { etag: 'k3', version: 4 })
 * // { ETag: '"k3"', 'Content-Location': 'https://h/api/v1/provisioning/tenants/t/bots/b/versions/4' }
 */
export function versionHeaders(selfUrl: string, written: { etag: string; version: number }): Record<string, string> {
  // The last `/versions/` is the document's own: an id holds no '/', so `.../versions/versions/current` ends in it too.
  const base = selfUrl.slice(0, selfUrl.lastIndexOf(VERSIONS_SEGMENT) + VERSIONS_SEGMENT.length);
  return { ETag: formatEntityTag(written.etag), 'Content-Location': `${base}${written.version}` };
}

/**
 * A write's answer: the document written, with the headers of its version.
 *
 * @example recordAnswer(ledger, idempotency, (written) => versionAnswer(http.selfUrl, written))
 */
export function versionAnswer(
  selfUrl: string,
  written: { json: string; etag: string; version: number },
  status = 200,
): ApiResult {
  return { status, bodyText: written.json, headers: versionHeaders(selfUrl, written) };
}
