/**
 * Loads import data already in memory into a tenant (idempotent by id: re-import overwrites):
 * the local runtime's demo tenant and `cxm smoke`'s rows. `cxm import` streams its file instead
 * (infra/cli/import/run-import.ts); both go through the same checker and writer, so they accept,
 * refuse and write exactly alike.
 */
import type { ImportFileContent } from '#shared/schemas/import-file';
import { type ImportMember, type ImportWrite, importChecker } from './check-import-entry.ts';
import { entriesOf } from './import-entries.ts';
import { type ImportStores, writeImport } from './write-import.ts';

/** Items imported per member, in the order the summary line names them. */
export type ImportSummary = Record<ImportMember, number>;

export const emptySummary = (): ImportSummary => ({
  conversations: 0,
  documents: 0,
  vocJobs: 0,
  assistantConversations: 0,
  vocConversations: 0,
});

/** Checks the whole content before anything is written, so bad content changes nothing. */
export function parseImportFile(tenantId: string, content: unknown): ImportFileContent {
  const check = importChecker(tenantId);
  for (const entry of entriesOf(content)) check(entry);
  return content as ImportFileContent;
}

export async function importData(
  tenantId: string,
  file: ImportFileContent,
  stores: ImportStores,
): Promise<ImportSummary> {
  const check = importChecker(tenantId);
  const writes: ImportWrite[] = [];
  for (const entry of entriesOf(file)) {
    const write = check(entry);
    if (write) writes.push(write);
  }
  const summary = emptySummary();
  for (const write of writes) summary[write.member]++;
  await writeImport(tenantId, writes, stores);
  return summary;
}
