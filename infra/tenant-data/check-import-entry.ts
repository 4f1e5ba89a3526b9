/**
 * The import file's rules, one entry at a time (import-entries.ts), so a file is checked as it
 * streams by and never needs to be whole in memory: each element against the ImportFile schema
 * (validated inside a one-element file, its index put back into the message), then what the
 * schema cannot say (ids unique and storable, locks that are times, documents that are faithful
 * JSON within the size limit, rows the lists can shape). A checked item comes back as the write it
 * becomes. Messages name the member and the index, as they did when the file was checked whole.
 */
import type { ErrorObject } from 'ajv';
import { isStorableDocId } from '#shared/domain/documents/document-id';
import { DOCUMENT_MAX_BYTES, jsonBytes } from '#shared/domain/documents/document-size';
import { describeUnfaithfulJson } from '#shared/domain/json/describe-unfaithful-json';
import { type Conversation, conversationWithDefaults } from '#shared/domain/notes/conversation';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { type ReportRow, type ShapedRow, shapeRow } from '#shared/domain/reporting/report-rows';
import { parseIsoDateTime } from '#shared/domain/time/parse-instant';
import type { VocJob } from '#shared/domain/voc/job-status';
import { describeValidationError } from '#shared/http/describe-validation-error';
import { validatorFor } from '#shared/http/validator-for';
import type { ImportConversation } from '#shared/schemas/import-file';
import { tenantKey } from '#shared/store/composite-key';
import type { ImportEntry, ImportSection, JsonShape } from './import-entries.ts';
import { ImportError } from './import-error.ts';

/** What one checked element of the file writes. */
export type ImportWrite =
  | { member: 'conversations'; conversation: Conversation }
  | { member: 'documents'; collection: string; id: string; json: string }
  | { member: 'vocJobs'; job: VocJob }
  | { member: 'assistantConversations' | 'vocConversations'; kind: ReportKind; row: ShapedRow };

export type ImportMember = ImportWrite['member'];

const ROW_KINDS: Record<string, ReportKind> = { assistantConversations: 'assistant', vocConversations: 'voc' };

/** A value of each JSON type, to check a member's type without its content. */
const SAMPLES: Record<JsonShape, unknown> = {
  object: {},
  array: [],
  string: '',
  number: 0,
  boolean: false,
  null: null,
};

function lockedUntilMs(value: ImportConversation['lockedUntil'], id: string): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  const ms = parseIsoDateTime(value);
  if (ms === undefined)
    throw new ImportError(
      `conversation '${id}': lockedUntil '${value}' is neither an ISO 8601 date-time with a zone, on a day that exists, nor epoch milliseconds`,
    );
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

const pointer = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

export interface CheckerOptions {
  /**
   * Remember ids to refuse duplicates (the default). The write pass, over a file already checked,
   * leaves it off: the sets are the checker's only memory that grows with the file.
   */
  duplicates?: boolean;
}

/** A checker for one pass over one file: entries in file order in, writes out. */
export function importChecker(
  tenantId: string,
  { duplicates = true }: CheckerOptions = {},
): (entry: ImportEntry) => ImportWrite | undefined {
  const validate = validatorFor('ImportFile');
  const members = new Set<string>();
  const collections = new Set<string>();
  const ids = new Map<string, Set<string>>();

  /** True when `id` was seen before in `scope` (and remembers it). */
  const seen = (scope: string, id: string): boolean => {
    if (!duplicates) return false;
    const set = ids.get(scope) ?? new Set<string>();
    ids.set(scope, set);
    if (set.has(id)) return true;
    set.add(id);
    return false;
  };

  /** Validates a file holding only `sample`; an element's error path gets its real index back. */
  const check = (sample: unknown, element?: { section: ImportSection; index: number }): void => {
    if (validate(sample)) return;
    let error: ErrorObject | undefined = validate.errors?.[0];
    if (error && element) {
      const { member, collection } = element.section;
      const base = collection === undefined ? `/${member}` : `/${member}/${pointer(collection)}`;
      if (error.instancePath.startsWith(`${base}/0`))
        error = { ...error, instancePath: `${base}/${element.index}${error.instancePath.slice(base.length + 2)}` };
    }
    throw new ImportError(describeValidationError('body', error).replace('the request body', 'the import file'));
  };

  function conversation(value: unknown): ImportWrite {
    const input = value as ImportConversation;
    if (seen('conversations', input.id)) throw new ImportError(`conversation '${input.id}' appears more than once`);
    if (tenantKey(tenantId, input.id) === undefined) {
      throw new ImportError(
        `conversation '${input.id.slice(0, 32)}...' has an id too long to store (over 2048 bytes with the tenant)`,
      );
    }
    return { member: 'conversations', conversation: toConversation(input) };
  }

  function document(collection: string, value: unknown): ImportWrite {
    const { id, data } = value as { id: string; data: Record<string, unknown> };
    const where = `document '${id.slice(0, 32)}' of collection '${collection}'`;
    if (seen(`documents/${collection}`, id)) throw new ImportError(`${where} appears more than once`);
    if (!isStorableDocId(id)) throw new ImportError(`${where} has an id too long to store (over 1024 bytes)`);
    const unfaithful = describeUnfaithfulJson(data);
    if (unfaithful) throw new ImportError(`${where}: ${unfaithful.replace('The request body', 'it')}`);
    const json = JSON.stringify(data);
    if (jsonBytes(json) > DOCUMENT_MAX_BYTES)
      throw new ImportError(`${where} is larger than ${DOCUMENT_MAX_BYTES} bytes as compact JSON`);
    return { member: 'documents', collection, id, json };
  }

  function row(member: 'assistantConversations' | 'vocConversations', index: number, value: unknown): ImportWrite {
    const kind = ROW_KINDS[member]!;
    let shaped: ShapedRow;
    try {
      shaped = shapeRow(kind, tenantId, value as ReportRow);
    } catch (error) {
      throw new ImportError(`${member}[${index}]: ${(error as Error).message}`);
    }
    if (seen(member, shaped.id)) throw new ImportError(`${member}: row '${shaped.id}' appears more than once`);
    if (tenantKey(tenantId, kind, shaped.id) === undefined || [...shaped.id].length > 512) {
      throw new ImportError(`${member}: row '${shaped.id.slice(0, 32)}...' has an ID too long to store`);
    }
    return { member, kind, row: shaped };
  }

  function job(value: unknown): ImportWrite {
    const input = value as VocJob;
    if (seen('vocJobs', input.id)) throw new ImportError(`VOC job '${input.id}' appears more than once`);
    if (tenantKey(tenantId, input.id) === undefined)
      throw new ImportError(`VOC job '${input.id.slice(0, 32)}...' has an id too long to store`);
    return { member: 'vocJobs', job: input };
  }

  return (entry) => {
    switch (entry.type) {
      case 'root':
        check(SAMPLES[entry.shape]);
        return undefined;
      case 'member':
        // JSON.parse would keep the last of two; neither is safe to guess at.
        if (members.has(entry.member)) throw new ImportError(`the import file holds '${entry.member}' more than once`);
        members.add(entry.member);
        check({ [entry.member]: SAMPLES[entry.shape] });
        return undefined;
      case 'collection':
        if (collections.has(entry.collection))
          throw new ImportError(`'documents' holds collection '${entry.collection}' more than once`);
        collections.add(entry.collection);
        check({ documents: { [entry.collection]: SAMPLES[entry.shape] } });
        return undefined;
      case 'item': {
        const { member, collection } = entry.section;
        check(
          collection === undefined ? { [member]: [entry.value] } : { documents: { [collection]: [entry.value] } },
          entry,
        );
        if (member === 'conversations') return conversation(entry.value);
        if (member === 'documents') return document(collection!, entry.value);
        if (member === 'vocJobs') return job(entry.value);
        if (member === 'assistantConversations' || member === 'vocConversations')
          return row(member, entry.index, entry.value);
        throw new ImportError(`Unknown property '${member}' in the import file.`);
      }
    }
  };
}
