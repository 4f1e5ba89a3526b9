/**
 * Loads an import file into a tenant (idempotent by id: re-import overwrites). Used by
 * `cxm import` and by the local runtime's demo tenant.
 */
import { describeValidationError } from '#shared/http/describe-validation-error';
import { validatorFor } from '#shared/http/validator-for';
import { conversationWithDefaults, type Conversation } from '#shared/domain/notes/conversation';
import type { ImportConversation, ImportFileContent } from '#shared/schemas/import-file';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { shapeRow, type ShapedRow } from '#shared/domain/reporting/report-rows';
import type { ReportingRowsStore } from '#shared/store/reporting-rows-store';
import { tenantKey } from '#shared/store/composite-key';
import type { ConversationsStore } from '#shared/store/conversations-store';
import type { DocumentsStore } from '#shared/store/documents-store';
import type { VocJobsStore } from '#shared/store/voc-jobs-store';
import { isStorableDocId } from '#shared/domain/documents/document-id';
import { describeUnfaithfulJson } from '#shared/http/check-json-body';
import { DOCUMENT_MAX_BYTES, jsonBytes } from '#shared/domain/documents/document-size';
import { ImportError } from './import-error.ts';

export interface ImportStores {
  conversations: ConversationsStore;
  documents: DocumentsStore;
  vocJobs: VocJobsStore;
  reportingRows: ReportingRowsStore;
}

export interface ImportSummary {
  conversations: number;
  documents: number;
  vocJobs: number;
  assistantConversations: number;
  vocConversations: number;
}

const ROW_MEMBERS: Record<ReportKind, 'assistantConversations' | 'vocConversations'> = {
  assistant: 'assistantConversations',
  voc: 'vocConversations',
};

/** Every row of the file shaped for the lists; a row that cannot be is an ImportError naming it. */
export function shapeImportRows(tenantId: string, file: ImportFileContent): Record<ReportKind, ShapedRow[]> {
  const shaped = { assistant: [] as ShapedRow[], voc: [] as ShapedRow[] };
  for (const kind of ['assistant', 'voc'] as const) {
    const ids = new Set<string>();
    (file[ROW_MEMBERS[kind]] ?? []).forEach((input, index) => {
      let row: ShapedRow;
      try {
        row = shapeRow(kind, tenantId, input);
      } catch (error) {
        throw new ImportError(`${ROW_MEMBERS[kind]}[${index}]: ${(error as Error).message}`);
      }
      if (ids.has(row.id)) throw new ImportError(`${ROW_MEMBERS[kind]}: row '${row.id}' appears more than once`);
      if (tenantKey(tenantId, kind, row.id) === undefined || [...row.id].length > 512) {
        throw new ImportError(`${ROW_MEMBERS[kind]}: row '${row.id.slice(0, 32)}...' has an ID too long to store`);
      }
      ids.add(row.id);
      shaped[kind].push(row);
    });
  }
  return shaped;
}

function lockedUntilMs(value: ImportConversation['lockedUntil'], id: string): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(value)) {
    throw new ImportError(`conversation '${id}': lockedUntil '${value}' is neither ISO 8601 with a zone nor epoch milliseconds`);
  }
  return ms;
}

export function toConversation(input: ImportConversation): Conversation {
  return conversationWithDefaults({
    id: input.id,
    ...(input.type !== undefined && { type: input.type }),
    ...(input.status !== undefined && { status: input.status }),
    mergedInto: input.mergedInto ?? null,
    lockedUntil: lockedUntilMs(input.lockedUntil, input.id),
    realtimeOwner: input.realtimeOwner ?? null,
    assignee: input.assignee ? { id: input.assignee.id, active: input.assignee.active ?? true } : null,
  });
}

/** Checks the whole file before anything is written, so a bad file changes nothing. */
export function parseImportFile(tenantId: string, content: unknown): ImportFileContent {
  const validate = validatorFor('ImportFile');
  if (!validate(content)) {
    throw new ImportError(describeValidationError('body', validate.errors?.[0]).replace('the request body', 'the import file'));
  }
  const file = content as ImportFileContent;
  const ids = new Set<string>();
  for (const conversation of file.conversations ?? []) {
    if (ids.has(conversation.id)) throw new ImportError(`conversation '${conversation.id}' appears more than once`);
    ids.add(conversation.id);
    if (tenantKey(tenantId, conversation.id) === undefined) {
      throw new ImportError(`conversation '${conversation.id.slice(0, 32)}...' has an id too long to store (over 2048 bytes with the tenant)`);
    }
    toConversation(conversation);
  }
  for (const [collection, documents] of Object.entries(file.documents ?? {})) {
    const docIds = new Set<string>();
    for (const document of documents) {
      const where = `document '${document.id.slice(0, 32)}' of collection '${collection}'`;
      if (docIds.has(document.id)) throw new ImportError(`${where} appears more than once`);
      docIds.add(document.id);
      if (!isStorableDocId(document.id)) throw new ImportError(`${where} has an id too long to store (over 1024 bytes)`);
      const unfaithful = describeUnfaithfulJson(document.data);
      if (unfaithful) throw new ImportError(`${where}: ${unfaithful.replace('The request body', 'it')}`);
      if (jsonBytes(JSON.stringify(document.data)) > DOCUMENT_MAX_BYTES) {
        throw new ImportError(`${where} is larger than ${DOCUMENT_MAX_BYTES} bytes as compact JSON`);
      }
    }
  }
  shapeImportRows(tenantId, file);
  const jobIds = new Set<string>();
  for (const job of file.vocJobs ?? []) {
    if (jobIds.has(job.id)) throw new ImportError(`VOC job '${job.id}' appears more than once`);
    jobIds.add(job.id);
    if (tenantKey(tenantId, job.id) === undefined) throw new ImportError(`VOC job '${job.id.slice(0, 32)}...' has an id too long to store`);
  }
  return file;
}

export async function importData(
  tenantId: string,
  file: ImportFileContent,
  stores: ImportStores,
  onProgress?: (done: number, total: number) => void,
): Promise<ImportSummary> {
  const conversations = (file.conversations ?? []).map(toConversation);
  const documents = Object.entries(file.documents ?? {}).flatMap(([collection, entries]) =>
    entries.map((entry) => ({ collection, id: entry.id, json: JSON.stringify(entry.data) })),
  );
  const writes = [
    ...conversations.map((conversation) => () => stores.conversations.putConversation(tenantId, conversation)),
    ...documents.map((d) => () => stores.documents.replace(tenantId, d.collection, d.id, d.json).then(() => undefined)),
    ...(file.vocJobs ?? []).map((job) => () => stores.vocJobs.put(tenantId, job)),
  ];
  const rows = shapeImportRows(tenantId, file);
  // Rows go in batches of 25 per request: one write task per 25 rows.
  for (const kind of ['assistant', 'voc'] as const) {
    for (let i = 0; i < rows[kind].length; i += 25) {
      const batch = rows[kind].slice(i, i + 25);
      writes.push(() => stores.reportingRows.putRows(tenantId, kind, batch));
    }
  }
  const CONCURRENCY = 16;
  for (let i = 0; i < writes.length; i += CONCURRENCY) {
    await Promise.all(writes.slice(i, i + CONCURRENCY).map((write) => write()));
    onProgress?.(Math.min(writes.length, i + CONCURRENCY), writes.length);
  }
  return {
    conversations: conversations.length,
    documents: documents.length,
    vocJobs: file.vocJobs?.length ?? 0,
    assistantConversations: rows.assistant.length,
    vocConversations: rows.voc.length,
  };
}
