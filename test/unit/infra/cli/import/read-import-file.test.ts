/**
 * The streaming reader gives the entries a whole-file parse gives, whatever the file's layout and
 * wherever its chunks split it (multi-byte characters across a 64 KB boundary included); a file
 * that is not JSON is named with its line and column; the per-entry checker keeps the index of the
 * element in its messages and refuses what a stream could otherwise hide (a member given twice).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readImportFile } from '#infra/cli/import/read-import-file';
import { importChecker } from '#infra/tenant-data/check-import-entry';
import { parseImportFile } from '#infra/tenant-data/import-data';
import { entriesOf, type ImportEntry } from '#infra/tenant-data/import-entries';

const dir = mkdtempSync(join(tmpdir(), 'cxm-read-import-'));
let files = 0;

function fileWith(text: string): string {
  const path = join(dir, `file-${files++}.json`);
  writeFileSync(path, text);
  return path;
}

async function streamed(path: string): Promise<ImportEntry[]> {
  const entries: ImportEntry[] = [];
  for await (const entry of readImportFile(path)) entries.push(entry);
  return entries;
}

const MEMBERS = [
  'conversations',
  'documents',
  'vocJobs',
  'assistantConversations',
  'vocConversations',
  'other',
] as const;
const memberValue = fc.oneof(
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }),
  fc.dictionary(
    fc.string({ maxLength: 8 }),
    fc.oneof(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })),
    { maxKeys: 3 },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);
const importLike = fc.oneof(
  fc.dictionary(fc.constantFrom(...MEMBERS), memberValue, { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 2 }),
);

describe('readImportFile', () => {
  it('gives the entries of JSON.parse, for any layout', async () => {
    await fc.assert(
      fc.asyncProperty(importLike, fc.constantFrom(undefined, 0, 2, '\t'), async (content, indent) => {
        const text = JSON.stringify(content, null, indent);
        expect(await streamed(fileWith(text))).toEqual([...entriesOf(JSON.parse(text))]);
      }),
      { numRuns: 150 },
    );
  });

  it('reads a file larger than its chunks, characters split across them included', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      ID: `r-${i}`,
      Summary: `${'ü😀'.repeat(i % 17)} row ${i}`,
      CSat: i % 5,
    }));
    const text = `\uFEFF${JSON.stringify({ assistantConversations: rows, documents: { bots: [{ id: 'b', data: { text: '€'.repeat(70_000) } }] } })}`;
    expect(text.length).toBeGreaterThan(200_000);
    expect(await streamed(fileWith(text))).toEqual([...entriesOf(JSON.parse(text.slice(1)))]);
  });

  it.each<[string, string, RegExp]>([
    [
      'a missing colon',
      '{"conversations": [\n  {"id": "a"},\n  {"id" "b"}\n]}',
      /is not valid JSON: line 3, column 9: expected ':'/,
    ],
    ['text after the value', '{"vocJobs": []}\nx', /is not valid JSON: line 2, column 1/],
    ['a file cut short', '{"conversations": [{"id": "a"}, {"id"', /is not valid JSON: the file ends early/],
    ['an empty file', '', /is not valid JSON: the file ends early/],
  ])('names where %s makes the file invalid', async (_name, text, message) => {
    await expect(streamed(fileWith(text))).rejects.toThrow(message);
  });
});

describe('the per-entry checker', () => {
  it.each<[string, unknown, RegExp]>([
    [
      'a late VOC job',
      {
        vocJobs: [1, 2, 3]
          .map((n) => ({ id: `j${n}`, status: 'started', started: 1, file: 'f', recordingId: 'r' }))
          .concat([{ id: 'j4', status: 'running', started: 1, file: 'f', recordingId: 'r' }]),
      },
      /'vocJobs.3.status' must be one of started, completed, failed/,
    ],
    [
      'a late document',
      {
        documents: {
          bots: [
            { id: 'a', data: {} },
            { id: 'b', data: 5 },
          ],
        },
      },
      /'documents.bots.1.data' must be an object/,
    ],
    [
      'a late row that is no object',
      { vocConversations: [{ ID: 'v', Datetime: '2026-01-01T09:00:00+01:00' }, 'x'] },
      /'vocConversations.1' must be an object/,
    ],
    ['a member that is no array', { conversations: { id: 'x' } }, /'conversations' must be an array/],
    ['a root that is no object', [1], /must be a JSON object/],
  ])('names the member and index of %s', (_name, content, message) => {
    expect(() => parseImportFile('acme', content)).toThrow(message);
  });

  it('refuses a member or a collection given twice, which JSON.parse would silently drop', async () => {
    for (const [text, message] of [
      ['{"vocJobs": [], "vocJobs": []}', /holds 'vocJobs' more than once/],
      ['{"documents": {"bots": [], "bots": []}}', /'documents' holds collection 'bots' more than once/],
    ] as const) {
      const check = importChecker('acme');
      await expect(
        (async () => {
          for await (const entry of readImportFile(fileWith(text))) check(entry);
        })(),
      ).rejects.toThrow(message);
    }
  });

  it('without duplicate tracking (the write pass) shapes the same writes', () => {
    const content = {
      conversations: [{ id: 'c', lockedUntil: '2099-01-01T00:00:00Z' }],
      assistantConversations: [{ ID: 'a', Datetime: 1767225600000 }],
    };
    const writes = (duplicates: boolean) =>
      [...entriesOf(content)].map(importChecker('acme', { duplicates })).filter(Boolean);
    expect(writes(false)).toEqual(writes(true));
    expect(writes(true)).toHaveLength(2);
  });
});
