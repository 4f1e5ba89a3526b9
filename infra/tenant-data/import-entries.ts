/**
 * An import file (infra/README.md, the operator CLI) as a sequence of entries in file order: the
 * root, each member, each collection of `documents`, and each element of their arrays. The
 * streaming reader (infra/cli/import/read-import-file.ts) produces them from a file of any size,
 * `entriesOf` from a file already in memory (the smoke and demo tenants), and one checker
 * (check-import-entry.ts) holds both to the same rules.
 */
import type { ImportFileContent } from '#shared/schemas/import-file';

/** A JSON value's type, enough to check a member without assembling it. */
export type JsonShape = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** Where an element sits: an array member, or a collection of `documents`. */
export interface ImportSection {
  member: string;
  collection?: string;
}

export type ImportEntry =
  | { type: 'root'; shape: JsonShape }
  | { type: 'member'; member: string; shape: JsonShape }
  | { type: 'collection'; collection: string; shape: JsonShape }
  | { type: 'item'; section: ImportSection; index: number; value: unknown };

export function shapeOf(value: unknown): JsonShape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'object' || type === 'string' || type === 'number' || type === 'boolean' ? type : 'null';
}

/** The entries of a file held in memory, in the order the streaming reader gives them. */
export function* entriesOf(content: unknown): Generator<ImportEntry> {
  yield { type: 'root', shape: shapeOf(content) };
  if (shapeOf(content) !== 'object') return;
  for (const [member, value] of Object.entries(content as ImportFileContent)) {
    yield { type: 'member', member, shape: shapeOf(value) };
    if (member === 'documents' && shapeOf(value) === 'object') {
      for (const [collection, documents] of Object.entries(value as Record<string, unknown>)) {
        yield { type: 'collection', collection, shape: shapeOf(documents) };
        if (Array.isArray(documents)) {
          for (const [index, item] of documents.entries())
            yield { type: 'item', section: { member, collection }, index, value: item };
        }
      }
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) yield { type: 'item', section: { member }, index, value: item };
    }
  }
}
