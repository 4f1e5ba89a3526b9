/**
 * Keys of the reporting table: the row at pk `<tenant>#<kind>#<id>`; the window index at gpk
 * `<tenant>#<kind>`, gsk `<Datetime ms, 15 digits>#<id>`, so string order is time order.
 */
import type { ReportKind } from '#shared/domain/reporting/report-cursor';

export const rowKey = (tenantId: string, kind: ReportKind, id: string) => `${tenantId}#${kind}#${id}`;
export const listKey = (tenantId: string, kind: ReportKind) => `${tenantId}#${kind}`;
export const timeKey = (ms: number) => String(ms).padStart(15, '0');
export const sortKey = (ms: number, id: string) => `${timeKey(ms)}#${id}`;

/** A count bucket's sort key in the counts table (pk: listKey): level, then start, so a run is one range. */
export const countKey = (level: number, start: number) => `${level}#${timeKey(start)}`;
