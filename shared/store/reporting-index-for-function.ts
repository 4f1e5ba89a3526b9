/** The reporting index of this function, bound at cold start. */
import { createDynamoReportingIndex } from './dynamo-reporting-index.ts';
import { documentClient } from './dynamo-client.ts';
import type { ReportingIndex } from './reporting-index.ts';
import { tableName } from './table-name.ts';

export function reportingIndex(): ReportingIndex {
  return createDynamoReportingIndex(documentClient(), tableName('reporting'));
}
