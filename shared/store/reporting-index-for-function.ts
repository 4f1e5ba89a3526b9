/**
 * The reporting index of this function, chosen by its stage (CXM_REPORTING_BACKEND, set by CDK):
 * OpenSearch where the stage has a domain, else the reporting table's window index (the local
 * default). Bound at cold start. The OpenSearch adapter is imported only on its own branch, so a
 * DynamoDB stage never initialises the OpenSearch client and its signer; and a deployed bundle has
 * the variable compiled in (infra/constructs/reporting-backend-bundling.ts), so esbuild leaves the
 * other backend's branch and modules out of it. The variable is read in each test, not copied to
 * a local, so that the compiled-in constant folds there.
 */

import { documentClient } from './dynamo-client.ts';
import { createDynamoReportingIndex } from './dynamo-reporting-index.ts';
import type { ReportingIndex } from './reporting-index.ts';
import { tableName } from './table-name.ts';
import type { TableId } from './table-specs.ts';

/** The tables the DynamoDB window index reads: a list on an OpenSearch stage has no use for them. */
export const DYNAMO_INDEX_TABLES: readonly TableId[] = ['reporting', 'reportingCounts'];

export async function reportingIndex(): Promise<ReportingIndex> {
  if (process.env.CXM_REPORTING_BACKEND === 'opensearch') {
    const [{ opensearchSettings }, { createOpenSearchClient }, { createOpenSearchReportingIndex }] = await Promise.all([
      import('./opensearch-settings.ts'),
      import('./opensearch-client.ts'),
      import('./opensearch-reporting-index.ts'),
    ]);
    const settings = opensearchSettings();
    return createOpenSearchReportingIndex(createOpenSearchClient({ endpoint: settings.endpoint }), settings.indexPrefix);
  }
  const backend = process.env.CXM_REPORTING_BACKEND ?? 'dynamodb';
  if (backend !== 'dynamodb') throw new Error(`CXM_REPORTING_BACKEND must be opensearch or dynamodb, not ${backend}`);
  return createDynamoReportingIndex(documentClient(), { rows: tableName('reporting'), counts: tableName('reportingCounts') });
}
