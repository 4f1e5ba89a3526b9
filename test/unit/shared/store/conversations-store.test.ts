/** How addNote reads a cancelled transaction: each cancellation reason leads to its own answer. */
import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { createConversationsStore } from '#shared/store/conversations-store';
import { StoreUnavailableError } from '#shared/store/store-unavailable-error';

const note = {
  id: '01JNOTE',
  body: 'x',
  createdAt: '2026-01-01T00:00:00.000Z',
  visibility: 'internal' as const,
  author: { type: 'system', id: null, name: 'API' },
};

function storeFailingWith(...attempts: CancellationReason[][]) {
  const sent: unknown[] = [];
  const client = {
    send: async (command: { input: unknown }) => {
      sent.push(command.input);
      const reasons = attempts[Math.min(sent.length - 1, attempts.length - 1)]!;
      if (reasons.length === 0) return {};
      throw new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });
    },
  } as unknown as DynamoDBDocumentClient;
  return { store: createConversationsStore(client, 'table'), sent };
}

const add = (store: ReturnType<typeof storeFailingWith>['store']) => store.addNote('acme', 'c1', note, new Date());

describe('addNote and cancellation reasons', () => {
  it('explains a failed conversation check from the old item (409 closed)', async () => {
    const { store } = storeFailingWith([
      { Code: 'ConditionalCheckFailed', Item: marshall({ conversationId: 'c1', type: 'customer', status: 'closed' }) },
      { Code: 'None' },
    ]);
    expect(await add(store)).toEqual({
      kind: 'rejected',
      rejection: { kind: 'conflict', message: 'The conversation is closed.' },
    });
  });

  it('reports an absent conversation (no old item) as not found', async () => {
    const { store } = storeFailingWith([{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }]);
    expect(await add(store)).toMatchObject({ kind: 'rejected', rejection: { kind: 'not-found' } });
  });

  it('takes an existing note id as its own earlier commit, never as 404', async () => {
    const { store } = storeFailingWith([{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }]);
    expect(await add(store)).toEqual({ kind: 'added' });
  });

  it('retries conflicts and throttling, then commits', async () => {
    const { store, sent } = storeFailingWith(
      [{ Code: 'TransactionConflict' }, { Code: 'None' }],
      [{ Code: 'ThrottlingError' }, { Code: 'None' }],
      [],
    );
    expect(await add(store)).toEqual({ kind: 'added' });
    expect(sent).toHaveLength(3);
    // Each attempt has its own idempotency token, all derived from the note id.
    expect(sent.map((input) => (input as { ClientRequestToken: string }).ClientRequestToken)).toEqual([
      '01JNOTE.0',
      '01JNOTE.1',
      '01JNOTE.2',
    ]);
  });

  it('gives up on endless conflicts as unavailable (503), not as a refusal', async () => {
    const { store } = storeFailingWith([{ Code: 'TransactionConflict' }, { Code: 'None' }]);
    await expect(add(store)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('a keyed note conflicting on its record reads the record once and replays the request that won', async () => {
    const { store, sent } = storeFailingWith([{ Code: 'None' }, { Code: 'None' }, { Code: 'TransactionConflict' }]);
    const winner = {
      fingerprint: 'f',
      response: { status: 201, bodyText: '{}', headers: {} },
      createdAt: '2026-11-23T00:00:00.000Z',
      expiresAtMs: Date.now() + 60_000,
    };
    let finds = 0;
    const record = {
      ledger: {
        recordItem: () => ({ Put: { TableName: 'idempotency', Item: { pk: 'acme#k' } } }),
        heldBy: () => undefined,
        find: async () => {
          finds++;
          return winner;
        },
      },
      claim: { key: 'k', fingerprint: 'f' },
      response: () => winner.response,
    };
    expect(await store.addNote('acme', 'c1', note, new Date(), { record })).toEqual({
      kind: 'recorded',
      record: winner,
    });
    expect([sent.length, finds]).toEqual([1, 1]);
  });

  it('rethrows a validation failure as a fault (502), not a 404', async () => {
    const { store, sent } = storeFailingWith([{ Code: 'ValidationError' }, { Code: 'None' }]);
    await expect(add(store)).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(sent).toHaveLength(1);
  });

  it('stops at an aborted deadline instead of committing later', async () => {
    const { store, sent } = storeFailingWith([]);
    const controller = new AbortController();
    controller.abort();
    await expect(store.addNote('acme', 'c1', note, new Date(), { signal: controller.signal })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(sent).toHaveLength(0);
  });
});
