/**
 * What the documents store does with the failures DynamoDB Local does not produce: a write whose
 * transaction meets another request's (cancelled with TransactionConflict) is a race to run again,
 * never a 502; and keyed writes that keep conflicting on their record read it once and replay the
 * request that won.
 */
import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VERSION_RETENTION } from '#shared/domain/documents/document-versions';
import type { IdempotencyRecord } from '#shared/domain/idempotency/recorded-response';
import { createDocumentsStore } from '#shared/store/documents-store';
import type { IdempotencyLedger, RecordRequest } from '#shared/store/idempotency-ledger';
import type { StopSignal } from '#shared/store/stop-signal';

type Answer = Record<string, unknown> | Error;

const TABLES = { documents: 'documents', versions: 'document-versions' };

/** A client answering each call from `answers` in turn (the last one repeats); records what was sent. */
function clientAnswering(...answers: Answer[]) {
  const sent: string[] = [];
  const client = {
    send: async (command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      const answer = answers[Math.min(sent.length - 1, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as DynamoDBDocumentClient;
  return { documents: createDocumentsStore(client, TABLES, DEFAULT_VERSION_RETENTION), sent };
}

const cancelled = (...reasons: CancellationReason[]) =>
  new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });
const stored = { Item: { pk: 't#c', sk: 'd', data: '{"a":1}', version: 3, etag: 'e3' } };

const winner: IdempotencyRecord = {
  fingerprint: 'f',
  response: { status: 200, bodyText: '{"a":2}', headers: { ETag: '"w"' } },
  createdAt: '2026-11-23T00:00:00.000Z',
  expiresAtMs: Date.now() + 60_000,
};

function keyed<W>(found: IdempotencyRecord | undefined): { request: RecordRequest<W>; finds: () => number } {
  let finds = 0;
  const ledger: IdempotencyLedger = {
    recordItem: () => ({ Put: { TableName: 'idempotency', Item: { pk: 't#k' } } }),
    heldBy: () => undefined,
    find: async () => {
      finds++;
      return found;
    },
  };
  return {
    request: {
      ledger,
      claim: { key: 'k', fingerprint: 'f' },
      response: () => ({ status: 200, bodyText: '{}', headers: {} }),
    },
    finds: () => finds,
  };
}

describe("a write meeting another request's transaction", () => {
  const inTransaction = () => cancelled({ Code: 'TransactionConflict' }, { Code: 'None' });

  it('a replace tries again and writes', async () => {
    const { documents, sent } = clientAnswering(stored, inTransaction(), {});
    expect(await documents.replace('t', 'c', 'd', '{"a":2}')).toMatchObject({
      kind: 'written',
      created: false,
      version: 4,
    });
    expect(sent).toEqual(['GetCommand', 'TransactWriteCommand', 'TransactWriteCommand']);
  });

  it('a merge tries again and writes', async () => {
    const { documents, sent } = clientAnswering(stored, inTransaction(), {});
    expect(await documents.update('t', 'c', 'd', () => '{"a":2}')).toMatchObject({ kind: 'written', json: '{"a":2}' });
    expect(sent).toEqual(['GetCommand', 'TransactWriteCommand', 'TransactWriteCommand']);
  });
});

describe('keyed writes that conflict on their record', () => {
  const conflict = cancelled({ Code: 'None' }, { Code: 'TransactionConflict' });

  it('a replace reads the record once and replays the winner', async () => {
    const { request, finds } = keyed<{ created: boolean; etag: string }>(winner);
    const { documents } = clientAnswering({}, conflict);
    expect(await documents.replace('t', 'c', 'd', '{"a":2}', { record: request })).toEqual({
      kind: 'recorded',
      record: winner,
    });
    expect(finds()).toBe(1);
  });

  it('a merge reads the record once and replays the winner', async () => {
    const { request, finds } = keyed<{ json: string; etag: string }>(winner);
    const { documents } = clientAnswering(stored, conflict);
    expect(await documents.update('t', 'c', 'd', () => '{"a":2}', { record: request })).toEqual({
      kind: 'recorded',
      record: winner,
    });
    expect(finds()).toBe(1);
  });

  it('with no record yet, reads once and then only retries the transaction', async () => {
    const { request, finds } = keyed<{ created: boolean; etag: string }>(undefined);
    const { documents, sent } = clientAnswering({}, conflict, conflict, {});
    expect(await documents.replace('t', 'c', 'd', '{"a":2}', { record: request })).toMatchObject({ kind: 'written' });
    expect(finds()).toBe(1);
    expect(sent).toEqual(['GetCommand', 'TransactWriteCommand', 'TransactWriteCommand', 'TransactWriteCommand']);
  });
});

describe('the deadline reaches every DynamoDB call of a merge', () => {
  it("the first read of the document and the read of the key's record carry the invocation's abort signal", async () => {
    const signals: (StopSignal | undefined)[] = [];
    const client = {
      send: async (_command: unknown, options?: { abortSignal?: StopSignal }) => {
        signals.push(options?.abortSignal);
        return { Item: undefined };
      },
    } as unknown as DynamoDBDocumentClient;
    const documents = createDocumentsStore(client, TABLES, DEFAULT_VERSION_RETENTION);
    const ledgerSignals: (StopSignal | undefined)[] = [];
    const { request } = keyed<{ json: string; etag: string }>(undefined);
    const ledger: IdempotencyLedger = {
      ...request.ledger,
      find: async (_tenant, _key, signal) => void ledgerSignals.push(signal),
    };
    const signal = new AbortController().signal;
    // An absent document with a key: the merge reads the document, then the key's record, and answers absent.
    expect(
      await documents.update('t', 'c', 'd', (data) => JSON.stringify(data), { signal, record: { ...request, ledger } }),
    ).toEqual({ kind: 'absent' });
    expect(signals).toEqual([signal]);
    expect(ledgerSignals).toEqual([signal]);
  });
});
