/**
 * The import writer against stores that answer out of order: rows go 25 to a call in file order,
 * at most 16 calls are in flight, the count it reports as stored never passes a write that has not
 * finished (so resuming from it skips nothing unwritten), a failure stops it with an exact count,
 * a resumed run sends nothing before that count, and a throttled write is sent again.
 */

import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ImportWrite } from '#infra/tenant-data/check-import-entry';
import { type ImportStores, writeImport } from '#infra/tenant-data/write-import';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import type { ShapedRow } from '#shared/domain/reporting/report-rows';

const row = (n: number): ImportWrite => ({
  member: 'assistantConversations',
  kind: 'assistant',
  row: { id: `a${n}`, datetimeMs: n, row: {} },
});
const conversation = (n: number): ImportWrite => ({
  member: 'conversations',
  conversation: conversationWithDefaults({ id: `c${n}` }),
});

/** 60 rows, a conversation, 40 rows, a VOC job, 30 rows: item positions 1..133. */
function sampleWrites(): ImportWrite[] {
  return [
    ...Array.from({ length: 60 }, (_, i) => row(i)),
    conversation(60),
    ...Array.from({ length: 40 }, (_, i) => row(61 + i)),
    { member: 'vocJobs', job: { id: 'j', status: 'started', started: 1, file: 'f', recordingId: 'r' } },
    ...Array.from({ length: 30 }, (_, i) => row(102 + i)),
  ];
}

/** Stores whose writes finish after random delays; each call records the ids it carried. */
function fakeStores(fail?: (ids: string[], call: number) => Error | undefined) {
  const calls: string[][] = [];
  const finished = new Set<string>();
  let inFlight = 0;
  let maxInFlight = 0;
  const write = async (ids: string[]) => {
    const call = calls.push(ids) - 1;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 8));
    inFlight--;
    const error = fail?.(ids, call);
    if (error) throw error;
    for (const id of ids) finished.add(id);
  };
  const stores = {
    reportingRows: { putRows: (_t: string, _k: string, rows: ShapedRow[]) => write(rows.map((r) => r.id)) },
    conversations: { putConversation: (_t: string, c: { id: string }) => write([c.id]) },
    documents: { replace: (_t: string, _c: string, id: string) => write([id]) },
    vocJobs: { put: (_t: string, job: { id: string }) => write([job.id]) },
  } as unknown as ImportStores;
  return { stores, calls, finished, maxInFlight: () => maxInFlight };
}

const idOf = (write: ImportWrite) =>
  'row' in write
    ? write.row.id
    : write.member === 'conversations'
      ? write.conversation.id
      : write.member === 'vocJobs'
        ? write.job.id
        : write.id;

describe('writeImport', () => {
  it('sends rows 25 to a call in file order, at most 16 calls at once, and reports only finished prefixes', async () => {
    const writes = sampleWrites();
    const { stores, calls, finished, maxInFlight } = fakeStores();
    const reported: number[] = [];
    await writeImport('acme', writes, stores, {
      onCommitted: (stored) => {
        // Everything before the reported count is stored at the moment it is reported.
        for (const write of writes.slice(0, stored)) expect(finished.has(idOf(write))).toBe(true);
        reported.push(stored);
      },
    });
    expect(calls.map((ids) => ids.length)).toEqual([25, 25, 10, 1, 25, 15, 1, 25, 5]);
    expect(calls.flat()).toEqual(writes.map(idOf));
    expect(maxInFlight()).toBeLessThanOrEqual(16);
    expect(reported.at(-1)).toBe(writes.length);
    expect([...reported].sort((a, b) => a - b)).toEqual(reported);
  });

  it('stops at a failed write with the exact stored count, and a resumed run sends only what follows it', async () => {
    const writes = sampleWrites();
    const failing = fakeStores((ids) => (ids.includes('a70') ? new Error('store down') : undefined));
    let stored = 0;
    await expect(writeImport('acme', writes, failing.stores, { onCommitted: (n) => (stored = n) })).rejects.toThrow(
      'store down',
    );
    // The failed call held positions 62..86 (a61..a85): nothing at or after it counts as stored.
    expect(stored).toBeLessThanOrEqual(61);
    for (const write of writes.slice(0, stored)) expect(failing.finished.has(idOf(write))).toBe(true);

    const resumed = fakeStores();
    await writeImport('acme', writes, resumed.stores, { skip: stored });
    expect(resumed.calls.flat()).toEqual(writes.slice(stored).map(idOf));
  });

  it('sends a throttled write again after a pause', async () => {
    let throttled = 0;
    const { stores, finished } = fakeStores((_ids, call) =>
      call === 0 && throttled++ === 0 ? new ThrottlingException({ message: 'slow down', $metadata: {} }) : undefined,
    );
    let pauses = 0;
    await writeImport('acme', [row(1), row(2)], stores, { onThrottled: () => pauses++ });
    expect(pauses).toBe(1);
    expect([...finished]).toEqual(['a1', 'a2']);
  });
});
