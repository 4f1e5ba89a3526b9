/**
 * Creates the reporting indexes with their mappings when missing. Safe to run at every cold start
 * and from several functions at once: an index that already exists is left as it is.
 */
import { errors, type Client } from '@opensearch-project/opensearch';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { REPORTING_INDEX_SETTINGS, reportingIndexName, reportingMappings } from './opensearch-mappings.ts';

const KINDS: ReportKind[] = ['assistant', 'voc'];

function alreadyExists(error: unknown): boolean {
  if (!(error instanceof errors.ResponseError)) return false;
  const body = error.body as { error?: { type?: unknown } } | undefined;
  return error.statusCode === 400 && body?.error?.type === 'resource_already_exists_exception';
}

export async function ensureIndexes(client: Client, prefix: string): Promise<void> {
  // Create outright instead of asking first: a check then create would race another cold start.
  await Promise.all(
    KINDS.map(async (kind) => {
      try {
        await client.indices.create({
          index: reportingIndexName(prefix, kind),
          body: { settings: REPORTING_INDEX_SETTINGS, mappings: reportingMappings(kind) },
        });
      } catch (error) {
        if (!alreadyExists(error)) throw error;
      }
    }),
  );
}
