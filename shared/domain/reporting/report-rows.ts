/**
 * The reporting rows of the spec, field by field (two names hold a space). Every row carries
 * every field, unknown values as null, and nothing else (D6): rows are shaped once, when written.
 * Units (D6): assistant Datetime, EndDatetime, escalatedAt in epoch ms and Duration in seconds;
 * VOC Datetime in ISO 8601 with the tenant's offset, DatetimeUTC ending in Z.
 */
import type { ReportKind } from './report-cursor.ts';
import { parseInstant } from './parse-instant.ts';

export const ASSISTANT_FIELDS = [
  'ID', 'TenantID', 'BotID', 'BotName', 'Datetime', 'EndDatetime', 'DatetimeUTC', 'EndDatetimeUTC', 'Duration', 'Escalated',
  'escalatedAt', 'CSat', 'AgentName', 'AgentId', 'AgentEmail', 'Category', 'Subcategory', 'Tertiary', 'RemoteIp', 'userAgent',
  'Referrer', 'Media', 'Summary', 'Handoff Reason', 'ticketId', 'ticketUrl', 'ticketKind', 'Input', 'Contact Name', 'Contact Email',
  'Contact Phone',
] as const;

export const VOC_FIELDS = [
  'ID', 'TenantID', 'Datetime', 'DatetimeUTC', 'Duration', 'Direction', 'Media', 'AgentName', 'AgentId', 'AgentEmail', 'CustomerName',
  'CustomerId', 'CustomerEmail', 'Groups', 'Tags', 'Category', 'Subcategory', 'Tertiary', 'CategoryExplanation', 'CategoriesId',
  'Summary', 'CSat', 'CSatExplanation', 'Sentiment', 'SentimentExplanation', 'Problems', 'KPIs', 'SourceSystem', 'TicketId', 'TicketUrl',
] as const;

export const REPORT_FIELDS: Record<ReportKind, readonly string[]> = { assistant: ASSISTANT_FIELDS, voc: VOC_FIELDS };

export type ReportRow = Record<string, unknown>;

export interface ShapedRow {
  id: string;
  /** The instant the list is ordered and windowed by, epoch ms. */
  datetimeMs: number;
  row: ReportRow;
}

const isoZ = (ms: unknown) => (typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/**
 * A row as the lists serve it, from what an import or pipeline provides. Derived fields (the UTC
 * forms) are filled when absent. Throws a RangeError naming the problem for a row that cannot be
 * ordered (no ID or no usable Datetime).
 */
export function shapeRow(kind: ReportKind, tenantId: string, input: ReportRow): ShapedRow {
  const id = input.ID;
  if (typeof id !== 'string' || id === '') throw new RangeError('a row needs a non-empty string ID');
  const row: ReportRow = {};
  for (const field of REPORT_FIELDS[kind]) row[field] = input[field] ?? null;
  row.TenantID = tenantId;
  let datetimeMs: number | undefined;
  if (kind === 'assistant') {
    datetimeMs = typeof input.Datetime === 'number' && Number.isSafeInteger(input.Datetime) ? input.Datetime : undefined;
    row.DatetimeUTC ??= isoZ(input.Datetime);
    row.EndDatetimeUTC ??= isoZ(input.EndDatetime);
  } else {
    datetimeMs = typeof input.Datetime === 'string' ? parseInstant(input.Datetime) : undefined;
    row.DatetimeUTC ??= isoZ(datetimeMs);
  }
  if (datetimeMs === undefined) {
    throw new RangeError(
      `row '${id}' needs a Datetime ${kind === 'assistant' ? 'in epoch milliseconds' : 'in ISO 8601 with the tenant offset'}`,
    );
  }
  const unknown = Object.keys(input).filter((field) => !REPORT_FIELDS[kind].includes(field));
  if (unknown.length > 0) throw new RangeError(`row '${id}' has fields the ${kind} rows do not have: ${unknown.join(', ')}`);
  return { id, datetimeMs, row };
}
