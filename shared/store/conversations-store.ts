/**
 * Conversations and their notes, in one table: the conversation at sk `CONVERSATION`, each note
 * beside it at sk `NOTE#<ulid>`. A note is committed by one transaction (ConditionCheck on the
 * conversation + Put of the note), so no note can land on a conversation that stopped accepting
 * notes, whatever races it.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotencyRecord } from '#shared/domain/idempotency/recorded-response';
import type { Conversation } from '#shared/domain/notes/conversation';
import { explainNoteRejection, type NoteRejection } from '#shared/domain/notes/explain-note-rejection';
import { tenantKey } from './composite-key.ts';
import { type RecordRequest, recordLookupOnce } from './idempotency-ledger.ts';
import type { StopSignal } from './stop-signal.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';
import { backoff, busyReason, CONTENDED_ITEM } from './write-retry.ts';

const CONVERSATION_SK = 'CONVERSATION';
/** Every note's sort key starts so; the NoteCreated pipe filters the table's stream on it. */
export const NOTE_SK_PREFIX = 'NOTE#';
const MAX_ATTEMPTS = 6;

export interface NewNote {
  id: string;
  body: string;
  createdAt: string;
  visibility: 'internal';
  author: { type: string; id: string | null; name: string };
}

export interface StoredNote extends NewNote {
  conversationId: string;
}

export type AddNoteOutcome =
  | { kind: 'added' }
  | { kind: 'rejected'; rejection: NoteRejection }
  /** The request's idempotency key already records a committed write: nothing was written. */
  | { kind: 'recorded'; record: IdempotencyRecord };

export interface AddNoteOptions {
  /** Aborted at the deadline: nothing commits afterwards. */
  signal?: StopSignal;
  /** Records the response under an idempotency key, in the note's own transaction. */
  record?: RecordRequest<void>;
}

export interface ConversationsStore {
  addNote(
    tenantId: string,
    conversationId: string,
    note: NewNote,
    now: Date,
    options?: AddNoteOptions,
  ): Promise<AddNoteOutcome>;
  putConversation(tenantId: string, conversation: Conversation): Promise<void>;
  getConversation(tenantId: string, conversationId: string): Promise<Conversation | undefined>;
  listNotes(tenantId: string, conversationId: string): Promise<StoredNote[]>;
}

/**
 * The note rules on the conversation as one expression; explainNoteRejection states the same rules
 * in code. Absent and NULL attributes both count as unset.
 */
const ACCEPTS_NOTES = [
  'attribute_exists(pk)',
  '#type = :customer',
  '(attribute_not_exists(#status) OR NOT (#status IN (:closed, :merged)))',
  '(attribute_not_exists(mergedInto) OR attribute_type(mergedInto, :null))',
  '(attribute_not_exists(realtimeOwner) OR attribute_type(realtimeOwner, :null))',
  '(attribute_not_exists(lockedUntil) OR attribute_type(lockedUntil, :null) OR lockedUntil <= :now)',
  '(attribute_not_exists(assignee) OR attribute_type(assignee, :null) OR attribute_not_exists(assignee.active) OR assignee.active = :true)',
].join(' AND ');

function toConversation(item: Record<string, unknown>): Conversation {
  const assignee = item.assignee as { id?: unknown; active?: unknown } | null | undefined;
  return {
    id: String(item.conversationId),
    type: String(item.type),
    status: typeof item.status === 'string' ? item.status : 'open',
    mergedInto: typeof item.mergedInto === 'string' ? item.mergedInto : null,
    lockedUntil: typeof item.lockedUntil === 'number' ? item.lockedUntil : null,
    realtimeOwner: typeof item.realtimeOwner === 'string' ? item.realtimeOwner : null,
    assignee: assignee ? { id: String(assignee.id), active: assignee.active !== false } : null,
  };
}

export function createConversationsStore(client: DynamoDBDocumentClient, table: string): ConversationsStore {
  return {
    async addNote(tenantId, conversationId, note, now, { signal, record } = {}) {
      const pk = tenantKey(tenantId, conversationId);
      if (pk === undefined) return { kind: 'rejected', rejection: explainNoteRejection(undefined, now.getTime())! };
      // A note's answer does not depend on the write: it is the same on every attempt.
      const concurrentRecord = recordLookupOnce(tenantId, record, signal);
      const recordItem =
        record && ((nowMs: number) => record.ledger.recordItem(tenantId, record.claim, record.response(), nowMs));
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        // Past the deadline the caller has answered 504 already: a later commit would surprise it.
        if (signal?.aborted) throw new StoreUnavailableError(`note on ${conversationId} abandoned at the deadline`);
        const nowMs = attempt === 0 ? now.getTime() : Date.now();
        try {
          await client.send(
            new TransactWriteCommand({
              // The SDK retries a call whose answer was lost; the token makes that retry a no-op
              // instead of a second attempt that would fail on the note it already wrote.
              ClientRequestToken: `${note.id}.${attempt}`,
              TransactItems: [
                {
                  ConditionCheck: {
                    TableName: table,
                    Key: { pk, sk: CONVERSATION_SK },
                    ConditionExpression: ACCEPTS_NOTES,
                    ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
                    ExpressionAttributeValues: {
                      ':customer': 'customer',
                      ':closed': 'closed',
                      ':merged': 'merged',
                      ':null': 'NULL',
                      ':now': nowMs,
                      ':true': true,
                    },
                    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                  },
                },
                {
                  Put: {
                    TableName: table,
                    // Plain tenantId, conversationId, id and createdAt: the NoteCreated pipe's template
                    // reads them from the stream (it cannot split the pk); see infra/cdk/constructs/note-events.ts.
                    Item: { pk, sk: `${NOTE_SK_PREFIX}${note.id}`, kind: 'note', tenantId, conversationId, ...note },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                ...(recordItem ? [recordItem(nowMs)] : []),
              ],
            }),
            // At the deadline the SDK stops as well: none of its retries commits after the 504.
            { abortSignal: signal },
          );
          return { kind: 'added' };
        } catch (error) {
          if (signal?.aborted)
            throw new StoreUnavailableError(`note on ${conversationId} abandoned at the deadline`, { cause: error });
          if (!(error instanceof TransactionCanceledException)) throw error;
          const [check, put, claim] = error.CancellationReasons ?? [];
          // The note's own id exists: ids are fresh ULIDs, so only this very request wrote it (an
          // earlier attempt whose answer was lost), and its record with it.
          if (put?.Code === 'ConditionalCheckFailed') return { kind: 'added' };
          // Then the key: a retry of a committed note replays it even if the conversation has
          // closed since (DynamoDB reports the reason of every item, not only the first to fail).
          const held = record?.ledger.heldBy(claim);
          if (held) return { kind: 'recorded', record: held };
          if (check?.Code === 'ConditionalCheckFailed') {
            const rejection = explainNoteRejection(
              check.Item ? toConversation(unmarshall(check.Item)) : undefined,
              nowMs,
            );
            if (rejection) return { kind: 'rejected', rejection };
            // The conversation accepts notes again (it changed after the check): try again.
          } else {
            const busy = busyReason([check?.Code, put?.Code, claim?.Code]);
            // A validation or size failure will not pass on a retry: a fault, not a refusal.
            if (!busy) throw error;
            const found = busy.conflict ? await concurrentRecord() : undefined;
            if (found) return { kind: 'recorded', record: found };
          }
          await backoff(attempt, CONTENDED_ITEM);
        }
      }
      throw new StoreUnavailableError(`note on ${conversationId} kept conflicting after ${MAX_ATTEMPTS} attempts`);
    },

    async putConversation(tenantId, conversation) {
      const pk = tenantKey(tenantId, conversation.id);
      if (pk === undefined)
        throw new RangeError(`conversation id ${conversation.id.slice(0, 40)}... is too long to store`);
      const { id, ...fields } = conversation;
      // Unset fields are omitted rather than stored as NULL: absent is the one spelling of "unset".
      const item = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
      await client.send(
        new PutCommand({
          TableName: table,
          Item: { pk, sk: CONVERSATION_SK, kind: 'conversation', tenantId, conversationId: id, ...item },
        }),
      );
    },

    async getConversation(tenantId, conversationId) {
      const pk = tenantKey(tenantId, conversationId);
      if (pk === undefined) return undefined;
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: { pk, sk: CONVERSATION_SK } }));
      return Item ? toConversation(Item) : undefined;
    },

    async listNotes(tenantId, conversationId) {
      const pk = tenantKey(tenantId, conversationId);
      if (pk === undefined) return [];
      const notes: StoredNote[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': pk, ':prefix': NOTE_SK_PREFIX },
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of page.Items ?? []) {
          notes.push({
            id: String(item.id),
            conversationId: String(item.conversationId),
            body: String(item.body),
            createdAt: String(item.createdAt),
            visibility: 'internal',
            author: item.author as NewNote['author'],
          });
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return notes;
    },
  };
}
