/**
 * DynamoDB stream records of the conversations table (NEW_IMAGE view, keys pk and sk), built from
 * the very items the conversations store writes: the store runs against a client that only records
 * what it is asked to write, and the item is marshalled as the document client marshals it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { Conversation } from '#shared/domain/notes/conversation';
import { createConversationsStore, type NewNote } from '#shared/store/conversations-store';
import { tableSpecs } from '#shared/store/table-specs';
import { sequenceNumber } from './reporting-stream-records.ts';

export type Item = Record<string, unknown>;

interface WriteInput {
  Item?: Item;
  TransactItems?: Array<{ Put?: { Item: Item } }>;
}

/** The items one store call puts, in order, without touching a table. */
async function itemsWrittenBy(
  write: (store: ReturnType<typeof createConversationsStore>) => Promise<unknown>,
): Promise<Item[]> {
  const written: Item[] = [];
  const client = {
    send: async (command: { input: WriteInput }) => {
      const { Item, TransactItems } = command.input;
      if (Item) written.push(Item);
      for (const part of TransactItems ?? []) if (part.Put) written.push(part.Put.Item);
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  await write(createConversationsStore(client, 'cxm-test-conversations'));
  return written;
}

export async function storedNoteItem(tenantId: string, conversationId: string, note: NewNote): Promise<Item> {
  const [item] = await itemsWrittenBy((store) => store.addNote(tenantId, conversationId, note, new Date()));
  if (!item) throw new Error('addNote wrote no item');
  return item;
}

export async function storedConversationItem(tenantId: string, conversation: Conversation): Promise<Item> {
  const [item] = await itemsWrittenBy((store) => store.putConversation(tenantId, conversation));
  if (!item) throw new Error('putConversation wrote no item');
  return item;
}

let sequence = 0;

/** A record as the stream delivers it: REMOVE carries only the keys, as in a NEW_IMAGE stream. */
export function conversationStreamRecord(item: Item, eventName: 'INSERT' | 'MODIFY' | 'REMOVE'): DynamoDBRecord {
  // The document client's own option (shared/store/dynamo-client.ts).
  const image = marshall(item, { removeUndefinedValues: true }) as unknown as Record<string, AttributeValue>;
  const { partitionKey, sortKey } = tableSpecs.conversations;
  const keys = Object.fromEntries([partitionKey, sortKey!].map(({ name }) => [name, image[name]!]));
  const position = sequenceNumber(++sequence);
  return {
    eventID: `event-${position}`,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    eventSourceARN:
      'arn:aws:dynamodb:eu-west-1:123456789012:table/cxm-test-conversations/stream/2026-01-01T00:00:00.000',
    eventName,
    dynamodb: {
      ApproximateCreationDateTime: 1767225600,
      Keys: keys,
      ...(eventName !== 'REMOVE' && { NewImage: image }),
      SequenceNumber: position,
      SizeBytes: 256,
      StreamViewType: 'NEW_IMAGE',
    },
  };
}
