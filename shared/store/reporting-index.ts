/**
 * The port of the reporting lists: one page of a tenant's rows of one kind in a window,
 * ordered by [Datetime, ID]. Two adapters implement it: DynamoDB (local default, small stages)
 * and OpenSearch (production); both pass one contract test.
 */
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import type { Window } from '#shared/domain/reporting/resolve-window';

export interface ReportPageQuery {
  tenantId: string;
  kind: ReportKind;
  window: Window;
  /** Sort key of the last row already served; the page starts after it. */
  after?: [number, string];
  limit: number;
  /** Count the rows of the whole window (first page only). */
  withTotal: boolean;
  /** Stop before the rows, escaped as they travel in a Lambda response, pass this many bytes. */
  maxBytes: number;
}

export interface ReportPage {
  /** Each row as JSON text. */
  rows: string[];
  /** Sort key of the last row of the page. */
  last?: [number, string];
  more: boolean;
  total?: number;
}

export interface ReportingIndex {
  page(query: ReportPageQuery): Promise<ReportPage>;
}
