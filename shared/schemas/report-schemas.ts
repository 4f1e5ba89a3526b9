/** Query and responses of the reporting lists (the assistant and VOC conversation lists). */
import { ASSISTANT_FIELDS, VOC_FIELDS } from '#shared/domain/reporting/report-rows';
import { MAX_REPORT_LIMIT } from '#shared/domain/reporting/resolve-window';

/**
 * Values are checked by resolveWindow, which names each problem; the schema refuses unknown names
 * and bounds lengths loosely (no valid value is near them), so an out-of-range
 * number still gets resolveWindow's message ("1 to 5000"), not a length complaint.
 */
export const ReportQuery = {
  $id: 'ReportQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'string', maxLength: 16, description: 'Rows per page, 1 to 5000 (default 1000).' },
    cursor: { type: 'string', maxLength: 4096, description: '`cursor.next` of the previous page.' },
    range: {
      type: 'string',
      enum: ['last_day', 'last_week', 'last_month'],
      description: 'Default last_day when from is absent.',
    },
    from: { type: 'string', maxLength: 64, description: 'Window start: ISO 8601 with a zone, or epoch milliseconds.' },
    to: { type: 'string', maxLength: 64, description: 'Window end (exclusive), default now.' },
  },
} as const;

const nullable = (type: string) => ({ type: [type, 'null'] });
const objects = { type: ['array', 'null'], items: { type: 'object' } };

const ASSISTANT_TYPES: Record<string, object> = {
  Datetime: nullable('number'),
  EndDatetime: nullable('number'),
  Duration: nullable('number'),
  Escalated: nullable('boolean'),
  escalatedAt: nullable('number'),
  CSat: nullable('number'),
};
const VOC_TYPES: Record<string, object> = {
  Duration: nullable('number'),
  CSat: nullable('number'),
  Sentiment: nullable('number'),
  Problems: objects,
  KPIs: objects,
};

function rowSchema(fields: readonly string[], types: Record<string, object>) {
  return {
    type: 'object',
    required: [...fields],
    additionalProperties: false,
    properties: Object.fromEntries(fields.map((field) => [field, types[field] ?? nullable('string')])),
  };
}

function listSchema(id: string, row: object) {
  return {
    $id: id,
    type: 'object',
    required: ['total', 'cursor', 'data'],
    additionalProperties: false,
    properties: {
      total: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      cursor: { type: 'object', additionalProperties: false, properties: { next: { type: 'string' } } },
      data: { type: 'array', maxItems: MAX_REPORT_LIMIT, items: row },
    },
  };
}

export const AssistantReportList = listSchema('AssistantReportList', rowSchema(ASSISTANT_FIELDS, ASSISTANT_TYPES));
export const VocReportList = listSchema('VocReportList', rowSchema(VOC_FIELDS, VOC_TYPES));
