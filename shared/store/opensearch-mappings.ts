/**
 * The mappings of the reporting indexes (one per list kind and year, opensearch-index-names.ts),
 * with explicit types for the spec fields so dashboards and future filters get the right types.
 * Reads never use those fields: a document also carries the row exactly as stored (`row`, JSON
 * text, kept in `_source` only) and our own `tenantId`, `rowId`, `datetimeMs` for the tenant
 * filter, the window and the [Datetime, ID] order (the reporting lists), and `rowHash`, a digest of
 * `row` by which a writer tells that the engine holds the version of a row it wrote (rowHash()).
 */
import { createHash } from 'node:crypto';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { REPORT_FIELDS, type ReportRow } from '#shared/domain/reporting/report-rows';

/** The part of OpenSearch's mapping language these indexes use. */
export interface Property {
  type: 'keyword' | 'text' | 'float' | 'boolean' | 'date' | 'long' | 'nested';
  ignore_above?: number;
  format?: string;
  index?: boolean;
  fields?: Record<string, Property>;
  properties?: Record<string, Property>;
}

export interface TypeMapping {
  dynamic: boolean;
  _routing: { required: boolean };
  properties: Record<string, Property>;
}

/** How a spec field is indexed; the same table decides the mapping and which values are sent. */
type FieldType =
  | 'keyword'
  | 'text'
  /** Free text that is also filtered or aggregated on whole (Summary, Handoff Reason). */
  | 'text+keyword'
  | 'float'
  | 'boolean'
  /** Epoch milliseconds (assistant Datetime, EndDatetime, escalatedAt). */
  | 'epoch-ms'
  /** ISO 8601 with a zone (DatetimeUTC, VOC Datetime with the tenant offset). */
  | 'iso-date'
  | { nested: string[] };

// Long values (a user agent, a URL) must not fail a document on Lucene's 32 KB term limit: past
// this many characters a keyword is kept in _source but not indexed.
const KEYWORD_IGNORE_ABOVE = 1024;

const COMMON: Record<string, FieldType> = {
  ID: 'keyword',
  TenantID: 'keyword',
  Duration: 'float',
  Media: 'keyword',
  AgentName: 'keyword',
  AgentId: 'keyword',
  AgentEmail: 'keyword',
  Category: 'keyword',
  Subcategory: 'keyword',
  Tertiary: 'keyword',
  Summary: 'text+keyword',
  CSat: 'float',
};

export const FIELD_TYPES: Record<ReportKind, Record<string, FieldType>> = {
  assistant: {
    ...COMMON,
    BotID: 'keyword',
    BotName: 'keyword',
    Datetime: 'epoch-ms',
    EndDatetime: 'epoch-ms',
    DatetimeUTC: 'iso-date',
    EndDatetimeUTC: 'iso-date',
    Escalated: 'boolean',
    escalatedAt: 'epoch-ms',
    RemoteIp: 'keyword',
    userAgent: 'keyword',
    Referrer: 'keyword',
    'Handoff Reason': 'text+keyword',
    ticketId: 'keyword',
    ticketUrl: 'keyword',
    ticketKind: 'keyword',
    Input: 'text',
    'Contact Name': 'keyword',
    'Contact Email': 'keyword',
    'Contact Phone': 'keyword',
  },
  voc: {
    ...COMMON,
    Datetime: 'iso-date',
    DatetimeUTC: 'iso-date',
    Direction: 'keyword',
    CustomerName: 'keyword',
    CustomerId: 'keyword',
    CustomerEmail: 'keyword',
    Groups: 'keyword',
    Tags: 'keyword',
    CategoryExplanation: 'text',
    CategoriesId: 'keyword',
    CSatExplanation: 'text',
    Sentiment: 'float',
    SentimentExplanation: 'text',
    // Only the names are indexed: other members (a KPI's value is a number or a boolean) vary in
    // type from row to row and would make documents fail on a mapping conflict.
    Problems: { nested: ['name', 'severity'] },
    KPIs: { nested: ['name'] },
    SourceSystem: 'keyword',
    TicketId: 'keyword',
    TicketUrl: 'keyword',
  },
};

const keyword: Property = { type: 'keyword', ignore_above: KEYWORD_IGNORE_ABOVE };

function property(type: FieldType): Property {
  if (typeof type === 'object') {
    return { type: 'nested', properties: Object.fromEntries(type.nested.map((name) => [name, keyword])) };
  }
  switch (type) {
    case 'keyword':
      return keyword;
    case 'text':
      return { type: 'text' };
    case 'text+keyword':
      return { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } };
    case 'float':
      return { type: 'float' };
    case 'boolean':
      return { type: 'boolean' };
    case 'epoch-ms':
      return { type: 'date', format: 'epoch_millis' };
    case 'iso-date':
      return { type: 'date', format: 'strict_date_optional_time' };
  }
}

export function reportingMappings(kind: ReportKind): TypeMapping {
  return {
    // Whatever a row holds beyond the declared fields stays in _source and is not indexed:
    // upstream data must never add or change a mapping.
    dynamic: false,
    // Documents are routed by tenant, so one tenant's list is on one shard of each year index; a
    // write or delete that forgets the routing would land on another shard and must fail instead.
    _routing: { required: true },
    properties: {
      tenantId: { type: 'keyword' },
      rowId: { type: 'keyword' },
      datetimeMs: { type: 'long' },
      row: { type: 'text', index: false },
      // Read from doc values only (never searched): which version of the row a document holds.
      rowHash: { type: 'keyword', index: false },
      ...Object.fromEntries(
        REPORT_FIELDS[kind].map((field) => [field, property(FIELD_TYPES[kind][field] ?? 'keyword')]),
      ),
    },
  };
}

/**
 * The digest a document carries of its row's text: the first 96 bits of its SHA-256, base64url.
 *
 * @example rowHash('{"ID":"a-1"}') // 16 characters
 */
export function rowHash(rowText: string): string {
  return createHash('sha256').update(rowText).digest().subarray(0, 12).toString('base64url');
}

export const REPORTING_INDEX_SETTINGS = {
  // A date that does not parse is left unindexed instead of failing the document: the row is
  // still listed, since reads use `row` and our own fields only.
  'index.mapping.ignore_malformed': true,
} as const;

function keywordValue(value: unknown): string | number | boolean | undefined {
  return typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
    ? value
    : undefined;
}

function projectValue(type: FieldType, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof type === 'object') {
    if (!Array.isArray(value)) return undefined;
    return value
      .filter(
        (item): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item),
      )
      .map((item) =>
        Object.fromEntries(
          type.nested.flatMap((name) => (keywordValue(item[name]) === undefined ? [] : [[name, item[name]]])),
        ),
      );
  }
  switch (type) {
    case 'keyword':
      return keywordValue(value);
    case 'text':
    case 'text+keyword':
    case 'iso-date':
      return typeof value === 'string' ? value : undefined;
    case 'float':
    case 'epoch-ms':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
  }
}

/**
 * The spec fields of a row as the mapping can take them. A value of another type is left out (it
 * stays in `row`), so one odd upstream value cannot make the indexer fail the same record forever.
 */
export function indexedFields(kind: ReportKind, row: ReportRow): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of REPORT_FIELDS[kind]) {
    const value = projectValue(FIELD_TYPES[kind][field] ?? 'keyword', row[field]);
    if (value !== undefined) fields[field] = value;
  }
  return fields;
}
