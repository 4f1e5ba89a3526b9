/**
 * Conversations and their notes, in one table: the conversation at sk `CONVERSATION`, each note
 * beside it at sk `NOTE#<ulid>`. A note is committed by one transaction (ConditionCheck on the
 * conversation + Put of the note), so no note can land on a conversation that stopped accepting
 * notes, whatever races it.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Conversation } from '#shared/domain/notes/conversation';
import { explainNoteRejection, type NoteRejection } from '#shared/domain/notes/explain-note-rejection';
import { tenantKey } from './composite-key.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';

const CONVERSATION_SK = 'CONVERSATION';
const NOTE_SK_PREFIX = 'NOTE#';
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

export type AddNoteOutcome = { added: true } | { added: false; rejection: NoteRejection };

export interface ConversationsStore {
  addNote(tenantId: string, conversationId: string, note: NewNote, now: Date): Promise<AddNoteOutcome>;
  putConversation(tenantId: string, conversation: Conversation): Promise<void>;
  getConversation(tenantId: string, conversationId: string): Promise<Conversation | undefined>;
  listNotes(tenantId: string, conversationId: string): Promise<StoredNote[]>;
}

/**
 * The conditions of D4 as one expression; explainNoteRejection states the same rules in code.
 * Absent and NULL attributes both count as unset.
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

function isConflictOnly(error: TransactionCanceledException): boolean {
  return (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');
}

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(400, 25 * 2 ** attempt)));

export function createConversationsStore(client: DynamoDBDocumentClient, table: string): ConversationsStore {
  return {
    async addNote(tenantId, conversationId, note, now) {
      const pk = tenantKey(tenantId, conversationId);
      if (pk === undefined) return { added: false, rejection: explainNoteRejection(undefined, now.getTime())! };
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const nowMs = attempt === 0 ? now.getTime() : Date.now();
        try {
          await client.send(
            new TransactWriteCommand({
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
                    Item: { pk, sk: `${NOTE_SK_PREFIX}${note.id}`, kind: 'note', tenantId, conversationId, ...note },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
              ],
            }),
          );
          return { added: true };
        } catch (error) {
          if (!(error instanceof TransactionCanceledException)) throw error;
          if (!isConflictOnly(error)) {
            const old = error.CancellationReasons?.[0]?.Item;
            const rejection = explainNoteRejection(old ? toConversation(unmarshall(old)) : undefined, nowMs);
            if (rejection) return { added: false, rejection };
          }
          // A concurrent transaction on the conversation, or it changed since the check: again.
          await backoff(attempt);
        }
      }
      throw new StoreUnavailableError(`note on ${conversationId} kept conflicting after ${MAX_ATTEMPTS} attempts`);
    },

    async putConversation(tenantId, conversation) {
      const pk = tenantKey(tenantId, conversation.id);
      if (pk === undefined) throw new RangeError(`conversation id ${conversation.id.slice(0, 40)}... is too long to store`);
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
