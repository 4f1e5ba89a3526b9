/**
 * `cxm import` and `cxm seed` report success once what they wrote is searchable: on a target that
 * serves reporting from OpenSearch (a stage with a domain, or `npm start` with
 * CXM_REPORTING_BACKEND=opensearch), rows reach the lists a moment after their write, through the
 * indexer. The commands' reporting store is wrapped to note each row written (recordWrittenRows),
 * then the engine is asked until it shows every one as written (rowsNotYetSearchable), with a
 * progress line. `--no-wait` skips it; a wait that makes no progress for its timeout fails, saying
 * what is stored and what to check.
 */
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import type { ShapedRow } from '#shared/domain/reporting/report-rows';
import type { OpenSearchClient } from '#shared/store/opensearch-client';
import { rowHash } from '#shared/store/opensearch-mappings';
import { rowsNotYetSearchable } from '#shared/store/opensearch-searchable';
import { type ReportingRowsStore, reportingItem } from '#shared/store/reporting-rows-store';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import { countProgress, progressOn } from '../terminal/count-progress.ts';

/** Where a target's lists search: its engine, and the prefix of its reporting layout. */
export interface ReportingSearch {
  client: OpenSearchClient;
  prefix: string;
}

/** The rows a run wrote: by tenant and list, each id with the digest of the text written last. */
export class WrittenRows {
  private readonly lists = new Map<string, { tenantId: string; kind: ReportKind; rows: Map<string, string> }>();

  note(tenantId: string, kind: ReportKind, rows: readonly ShapedRow[]): void {
    const key = `${tenantId}\u0000${kind}`;
    let list = this.lists.get(key);
    if (!list) {
      list = { tenantId, kind, rows: new Map() };
      this.lists.set(key, list);
    }
    // The text the rows store writes, from the function that writes it.
    for (const row of rows) list.rows.set(row.id, rowHash(reportingItem(tenantId, kind, row).row));
  }

  get count(): number {
    let count = 0;
    for (const { rows } of this.lists.values()) count += rows.size;
    return count;
  }

  /** Each list written, with the rows of it not yet seen searchable. */
  pending() {
    return [...this.lists.values()];
  }
}

/**
 * `stores` with its reporting rows store noting every row it stores into `written`.
 *
 * @example const noted = recordWrittenRows(stores, written); await writeImport(tenant, writes, noted);
 */
export function recordWrittenRows<T extends { reportingRows: ReportingRowsStore }>(stores: T, written: WrittenRows): T {
  const { reportingRows } = stores;
  return {
    ...stores,
    reportingRows: {
      ...reportingRows,
      async putRows(tenantId, kind, rows) {
        await reportingRows.putRows(tenantId, kind, rows);
        written.note(tenantId, kind, rows);
      },
    },
  };
}

/** How long a wait may go without one more row becoming searchable before it fails. */
export const DEFAULT_WAIT_SECONDS = 300;
const POLL_MS = 500;

/**
 * Waits until every row of `written` is searchable on `search`, showing progress on the run's
 * stderr; fails once `timeoutSeconds` pass with no row more becoming searchable. Answers the
 * seconds it waited.
 *
 * @example await waitUntilSearchable(cli, search, written, 300);
 */
export async function waitUntilSearchable(
  cli: CliContext,
  search: ReportingSearch,
  written: WrittenRows,
  timeoutSeconds: number,
): Promise<number> {
  const total = written.count;
  const started = performance.now();
  const progress = countProgress({ label: 'searchable', unit: 'items', total, ...progressOn(cli.stderr) });
  let waiting = total;
  let progressedAt = started;
  try {
    for (;;) {
      let left = 0;
      for (const list of written.pending()) {
        const notYet = new Set(
          await rowsNotYetSearchable(search.client, search.prefix, list.tenantId, list.kind, list.rows),
        );
        // What is searchable stays so (a row is rewritten only by another writer): asked for no more.
        for (const id of [...list.rows.keys()]) if (!notYet.has(id)) list.rows.delete(id);
        left += list.rows.size;
      }
      if (left < waiting) progressedAt = performance.now();
      waiting = left;
      progress.update(total - waiting);
      if (waiting === 0) return (performance.now() - started) / 1000;
      if (performance.now() - progressedAt >= timeoutSeconds * 1000) {
        throw new CliError(
          `${waiting} of the ${total} rows written are stored but not searchable after ${timeoutSeconds} s without progress: ` +
            "the lists show them once the reporting indexer has read them from the table's stream (is it running? a stage: its iterator age and dead-letter queue). " +
            'Nothing needs writing again; run with --no-wait to report success once rows are stored.',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    progress.finish();
  }
}
