/**
 * The reporting rows of the spec, field by field (two names hold a space). Every row carries
 * every field, unknown values as null, and nothing else: rows are shaped once, when written.
 * Units: assistant Datetime, EndDatetime, escalatedAt in epoch ms and Duration in seconds;
 * VOC Datetime in ISO 8601 with the tenant's offset, DatetimeUTC ending in Z.
 */

import { parseInstant } from '#shared/domain/time/parse-instant';
import type { ReportKind } from './report-cursor.ts';

export const ASSISTANT_FIELDS = [
  'ID',
  'TenantID',
  'BotID',
  'BotName',
  'Datetime',
  'EndDatetime',
  'DatetimeUTC',
  'EndDatetimeUTC',
  'Duration',
  'Escalated',
  'escalatedAt',
  'CSat',
  'AgentName',
  'AgentId',
  'AgentEmail',
  'Category',
  'Subcategory',
  'Tertiary',
  'RemoteIp',
  'userAgent',
  'Referrer',
  'Media',
  'Summary',
  'Handoff Reason',
  'ticketId',
  'ticketUrl',
  'ticketKind',
  'Input',
  'Contact Name',
  'Contact Email',
  'Contact Phone',
] as const;

export const VOC_FIELDS = [
  'ID',
  'TenantID',
  'Datetime',
  'DatetimeUTC',
  'Duration',
  'Direction',
  'Media',
  'AgentName',
  'AgentId',
  'AgentEmail',
  'CustomerName',
  'CustomerId',
  'CustomerEmail',
  'Groups',
  'Tags',
  'Category',
  'Subcategory',
  'Tertiary',
  'CategoryExplanation',
  'CategoriesId',
  'Summary',
  'CSat',
  'CSatExplanation',
  'Sentiment',
  'SentimentExplanation',
  'Problems',
  'KPIs',
  'SourceSystem',
  'TicketId',
  'TicketUrl',
] as const;

export const REPORT_FIELDS: Record<ReportKind, readonly string[]> = { assistant: ASSISTANT_FIELDS, voc: VOC_FIELDS };

type FieldType = 'string' | 'number' | 'boolean' | 'objects';

/** The spec's type of each field that is not a string. */
const FIELD_TYPES: Record<ReportKind, Record<string, FieldType>> = {
  assistant: {
    Datetime: 'number',
    EndDatetime: 'number',
    Duration: 'number',
    Escalated: 'boolean',
    escalatedAt: 'number',
    CSat: 'number',
  },
  voc: { Duration: 'number', CSat: 'number', Sentiment: 'number', Problems: 'objects', KPIs: 'objects' },
};

/** Instants the lists can order: epoch ms from 1970, at most 15 digits (the window index's keys). */
const MAX_INSTANT = 999_999_999_999_999;

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'objects':
      return (
        Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))
      );
    default:
      return typeof value === 'string';
  }
}

export type ReportRow = Record<string, unknown>;

export interface ShapedRow {
  id: string;
  /** The instant the list is ordered and windowed by, epoch ms. */
  datetimeMs: number;
  row: ReportRow;
}

/** ISO 8601 in UTC, or null for what is no instant (a JavaScript Date spans ±8.64e15 ms). */
const isoZ = (ms: unknown) => (typeof ms === 'number' && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null);

/**
 * A row as the lists serve it, from what an import or pipeline provides. Derived fields (the UTC
 * forms) are filled when absent. Throws a RangeError naming the problem for a row that cannot be
 * ordered (no ID or no usable Datetime).
 */
export function shapeRow(kind: ReportKind, tenantId: string, input: ReportRow): ShapedRow {
  const id = input.ID;
  if (typeof id !== 'string' || id === '') throw new RangeError('a row needs a non-empty string ID');
  const row: ReportRow = {};
  for (const field of REPORT_FIELDS[kind]) {
    const value = input[field] ?? null;
    const type = FIELD_TYPES[kind][field] ?? 'string';
    if (value !== null && !hasType(value, type)) {
      throw new RangeError(
        `row '${id}': ${field} must be ${type === 'objects' ? 'an array of objects' : `a ${type}`} or null`,
      );
    }
    row[field] = value;
  }
  row.TenantID = tenantId;
  let datetimeMs: number | undefined;
  // The UTC forms are always derived, so they can never contradict the instants they restate.
  if (kind === 'assistant') {
    datetimeMs = Number.isSafeInteger(input.Datetime) ? (input.Datetime as number) : undefined;
    row.DatetimeUTC = isoZ(input.Datetime);
    row.EndDatetimeUTC = isoZ(input.EndDatetime);
  } else {
    datetimeMs = typeof input.Datetime === 'string' ? parseInstant(input.Datetime) : undefined;
    row.DatetimeUTC = isoZ(datetimeMs);
  }
  if (datetimeMs !== undefined && (datetimeMs < 0 || datetimeMs > MAX_INSTANT)) datetimeMs = undefined;
  if (datetimeMs === undefined) {
    throw new RangeError(
      `row '${id}' needs a Datetime ${kind === 'assistant' ? 'in epoch milliseconds' : 'in ISO 8601 with the tenant offset'}`,
    );
  }
  const unknown = Object.keys(input).filter((field) => !REPORT_FIELDS[kind].includes(field));
  if (unknown.length > 0)
    throw new RangeError(`row '${id}' has fields the ${kind} rows do not have: ${unknown.join(', ')}`);
  return { id, datetimeMs, row };
}
