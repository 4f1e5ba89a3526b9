/**
 * A page of a reporting list (the assistant and VOC conversation lists): resolve the window (or take it from
 * the cursor), ask the index for one page, and answer `{total, cursor, data}` with `total` fixed
 * at the first page and carried by the cursor, and `cursor: {}` on the last page.
 */

import { badRequest } from '#shared/api/api-error';
import { decodeReportCursor, encodeReportCursor, type ReportKind } from '#shared/domain/reporting/report-cursor';
import { resolveWindow, type Window } from '#shared/domain/reporting/resolve-window';
import type { ApiRequest, ApiResult } from '#shared/http/api-types';
import { RESPONSE_BUDGET_BYTES } from '#shared/http/list-page';
import type { CursorKeysSource } from '#shared/secrets/cursor-keys';
import type { ReportingIndex } from '#shared/store/reporting-index';

const CURSOR_PROBLEMS = {
  malformed: "Query parameter 'cursor' is not a cursor of this API; take it from cursor.next of the previous page.",
  tampered: "Query parameter 'cursor' is not a cursor of this API; take it from cursor.next of the previous page.",
  foreign: "Query parameter 'cursor' belongs to another list or tenant.",
  expired: "Query parameter 'cursor' has expired (cursors last 24 hours); start again without a cursor.",
  retired:
    "Query parameter 'cursor' was signed with a key this API no longer accepts (the signing key was rotated twice since), or is not a cursor of this API; start again without a cursor.",
} as const;

export interface ReportListDependencies {
  kind: ReportKind;
  index: ReportingIndex;
  keys: CursorKeysSource;
}

export async function serveReportList(
  { kind, index, keys }: ReportListDependencies,
  { tenantId, query }: ApiRequest,
): Promise<ApiResult> {
  const now = Date.now();
  const resolved = resolveWindow(query, now);
  if (!resolved.ok) throw badRequest(resolved.message);
  let window: Window;
  let after: [number, string] | undefined;
  let total: number | undefined;
  if (resolved.cursor !== undefined) {
    let decoded = decodeReportCursor(resolved.cursor, { tenantId, kind }, await keys(), now);
    // A key this container does not know yet: the secret may have been rotated since it was read.
    if (!decoded.ok && decoded.reason === 'retired')
      decoded = decodeReportCursor(resolved.cursor, { tenantId, kind }, await keys({ fresh: true }), now);
    if (!decoded.ok) throw badRequest(CURSOR_PROBLEMS[decoded.reason]);
    ({ window, after, total } = decoded.state);
  } else {
    window = resolved.window!;
  }
  const page = await index.page({
    tenantId,
    kind,
    window,
    after,
    limit: resolved.limit,
    withTotal: total === undefined,
    maxBytes: RESPONSE_BUDGET_BYTES,
  });
  const fixedTotal = total ?? page.total ?? 0;
  const next =
    page.more && page.last
      ? encodeReportCursor({ tenantId, kind, window, after: page.last, total: fixedTotal }, (await keys())[0]!, now)
      : undefined;
  // Rows are stored as JSON text: splice them in rather than parse and serialise each.
  return {
    status: 200,
    bodyText: `{"total":${fixedTotal},"cursor":${next === undefined ? '{}' : JSON.stringify({ next })},"data":[${page.rows.join(',')}]}`,
  };
}
