/**
 * Writes checked import items (check-import-entry.ts) in file order: reporting rows 25 to a
 * putRows call, other items one request each, at most CONCURRENCY requests in flight, taken from
 * the source only as slots free up, so memory stays flat whatever the file's size.
 *
 * Writes finish out of order; what a resumed import may skip is only the items before the first
 * write not yet committed. `onCommitted` reports that count (in file order) as it grows, and
 * after a failure the writer waits for the writes in flight before it throws, so the last count
 * reported is exact: everything before it is stored, and resuming from it replays at most the
 * writes that were in flight (idempotent by id).
 */
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import type { ShapedRow } from '#shared/domain/reporting/report-rows';
import type { ConversationsStore } from '#shared/store/conversations-store';
import type { DocumentsStore } from '#shared/store/documents-store';
import type { ReportingRowsStore } from '#shared/store/reporting-rows-store';
import type { VocJobsStore } from '#shared/store/voc-jobs-store';
import type { ImportWrite } from './check-import-entry.ts';
import { retryThrottled } from './retry-throttled.ts';

export interface ImportStores {
  conversations: ConversationsStore;
  documents: DocumentsStore;
  vocJobs: VocJobsStore;
  reportingRows: ReportingRowsStore;
}

export interface WriteImportOptions {
  /** Items at the start (file order) that an earlier run stored: read past, not sent again. */
  skip?: number;
  /** The number of leading items stored, each time it grows. */
  onCommitted?: (items: number) => void;
  /** A write was throttled and will be retried after a pause. */
  onThrottled?: () => void;
}

/** Write requests in flight at once (as `cxm seed`). */
const CONCURRENCY = 16;
/** Reporting rows per putRows call. */
const ROW_BATCH = 25;

interface Task {
  /** The position (file order) after the task's last item. */
  end: number;
  done: boolean;
}

export async function writeImport(
  tenantId: string,
  writes: AsyncIterable<ImportWrite> | Iterable<ImportWrite>,
  stores: ImportStores,
  { skip = 0, onCommitted, onThrottled }: WriteImportOptions = {},
): Promise<void> {
  const queue: Task[] = [];
  const running = new Set<Promise<void>>();
  let committed = skip;
  let failure: { error: unknown } | undefined;

  const start = (end: number, work: () => Promise<void>) => {
    const task: Task = { end, done: false };
    queue.push(task);
    const promise = retryThrottled(work, onThrottled).then(
      () => {
        task.done = true;
        let advanced = false;
        while (queue[0]?.done) {
          committed = queue.shift()!.end;
          advanced = true;
        }
        if (advanced) onCommitted?.(committed);
      },
      (error: unknown) => {
        failure ??= { error };
      },
    );
    const tracked = promise.finally(() => running.delete(tracked));
    running.add(tracked);
  };

  /** Waits for a free slot; false once a write has failed (take no more). */
  const slot = async (): Promise<boolean> => {
    while (running.size >= CONCURRENCY && !failure) await Promise.race(running);
    return !failure;
  };

  /** Rows waiting for their putRows call, and the position after the last of them. */
  let rows: { kind: ReportKind; batch: ShapedRow[]; end: number } | undefined;
  const flushRows = async (): Promise<boolean> => {
    if (!rows) return true;
    const { kind, batch, end } = rows;
    rows = undefined;
    if (!(await slot())) return false;
    start(end, () => stores.reportingRows.putRows(tenantId, kind, batch));
    return true;
  };

  let position = 0;
  try {
    for await (const write of writes) {
      if (++position <= skip) continue;
      if ('row' in write) {
        if (rows && rows.kind !== write.kind && !(await flushRows())) break;
        rows ??= { kind: write.kind, batch: [], end: position };
        rows.batch.push(write.row);
        rows.end = position;
        if (rows.batch.length === ROW_BATCH && !(await flushRows())) break;
        continue;
      }
      // The rows before this item get their write (and their place in the order) first.
      if (!(await flushRows()) || !(await slot())) break;
      start(position, writeOf(tenantId, write, stores));
    }
  } catch (error) {
    // The source failed (the file changed under a resumed import): stop as a failed write would.
    failure ??= { error };
  }
  if (!failure) await flushRows();
  await Promise.all(running);
  if (failure) throw failure.error;
}

function writeOf(
  tenantId: string,
  write: Exclude<ImportWrite, { row: ShapedRow }>,
  stores: ImportStores,
): () => Promise<void> {
  switch (write.member) {
    case 'conversations':
      return () => stores.conversations.putConversation(tenantId, write.conversation);
    case 'documents':
      // An operator's import is no change the tenant's webhooks hear of.
      return () =>
        stores.documents
          .replace(tenantId, write.collection, write.id, write.json, { announce: false })
          .then(() => undefined);
    case 'vocJobs':
      return () => stores.vocJobs.put(tenantId, write.job);
  }
}
