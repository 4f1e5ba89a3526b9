/**
 * Writes a large `cxm import` file a chunk of rows at a time, with the stream's backpressure
 * respected, so generating half a million rows needs no more memory than a few thousand: realistic
 * assistant and VOC rows (infra/tenant-data/generate-report-rows.ts) with ids numbered `<prefix>a-000001`,
 * `<prefix>v-000001`. `edit` may change a row on the way (a test's bad element).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { generateAssistantRows, generateVocRows } from '#infra/tenant-data/generate-report-rows';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import type { ReportRow } from '#shared/domain/reporting/report-rows';

export interface ImportFileSpec {
  assistant: number;
  voc: number;
  /** Prepended to every row id. */
  prefix?: string;
  days?: number;
  now?: number;
  edit?: (kind: ReportKind, index: number, row: ReportRow) => ReportRow;
}

const CHUNK = 1000;

export async function generateImportFile(path: string, spec: ImportFileSpec): Promise<{ bytes: number; rows: number }> {
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const { prefix = '', days = 30, now = Date.now() } = spec;
  const members: Array<[string, ReportKind, number]> = [
    ['assistantConversations', 'assistant', spec.assistant],
    ['vocConversations', 'voc', spec.voc],
  ];
  await write('{');
  for (const [at, [member, kind, count]] of members.entries()) {
    await write(`${at > 0 ? ',\n' : ''}"${member}": [`);
    for (let start = 0; start < count; start += CHUNK) {
      const options = { count: Math.min(CHUNK, count - start), days, now, seed: start + (kind === 'voc' ? 7 : 3) };
      const rows = kind === 'assistant' ? generateAssistantRows(options) : generateVocRows(options);
      const lines = rows.map((row, i) => {
        const index = start + i;
        const numbered = {
          ...row,
          ID: `${prefix}${kind === 'assistant' ? 'a' : 'v'}-${String(index + 1).padStart(6, '0')}`,
        };
        return JSON.stringify(spec.edit ? spec.edit(kind, index, numbered) : numbered);
      });
      await write(`${start > 0 ? ',' : ''}\n${lines.join(',\n')}`);
    }
    await write('\n]');
  }
  await write('}\n');
  out.end();
  await once(out, 'finish');
  return { bytes: out.bytesWritten, rows: spec.assistant + spec.voc };
}
