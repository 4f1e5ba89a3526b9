/**
 * Provisioning documents: pk `<tenant>#<collection>`, sk `<docId>`, the document as JSON text
 * (`data`, so any JSON object round-trips exactly) and a `version` that guards every
 * read-modify-write. A replace is one atomic update; a change computed from the current document
 * (a merge) is written only if the version is still the one it was computed from.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isStorableDocId } from '#shared/domain/documents/document-id';
import type { JsonObject } from '#shared/domain/documents/json-value';
import { tenantKey } from './composite-key.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';

const MAX_UPDATE_ATTEMPTS = 40;

export interface DocumentEntry {
  id: string;
  /** The document as stored: compact JSON text. */
  json: string;
}

export interface DocumentPage {
  entries: DocumentEntry[];
  /** True when documents after the last entry remain. */
  more: boolean;
}

export interface DocumentsStore {
  /**
   * Up to `limit` documents after `after` in id order, stopping early once the entries would pass
   * `maxBytes` measured as they travel in a Lambda response: the body is a JSON string there,
   * so every quote and backslash of a document counts twice.
   */
  list(tenantId: string, collection: string, page: { limit: number; after?: string; maxBytes: number }): Promise<DocumentPage>;
  /** The document as stored (JSON text), or undefined. */
  get(tenantId: string, collection: string, docId: string): Promise<string | undefined>;
  /** Stores `json` as the document; says whether it was created. */
  /** Stores `json` as the document; with `signal`, a call abandoned at the deadline commits nothing afterwards. */
  replace(tenantId: string, collection: string, docId: string, json: string, signal?: AbortSignal): Promise<{ created: boolean }>;
  /**
   * Replaces the document by `change(current)` (JSON text) unless another write came between,
   * in which case it computes again from that write's result. Undefined when there is no document.
   */
  update(
    tenantId: string,
    collection: string,
    docId: string,
    change: (current: JsonObject) => string,
    signal?: AbortSignal,
  ): Promise<string | undefined>;
}

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** attempt)));

export function createDocumentsStore(client: DynamoDBDocumentClient, table: string): DocumentsStore {
  const key = (tenantId: string, collection: string, docId: string) => {
    const pk = tenantKey(tenantId, collection);
    return pk !== undefined && isStorableDocId(docId) ? { pk, sk: docId } : undefined;
  };

  return {
    async list(tenantId, collection, { limit, after, maxBytes }) {
      const pk = tenantKey(tenantId, collection);
      if (pk === undefined) return { entries: [], more: false };
      const entries: DocumentEntry[] = [];
      let bytes = 0;
      let startKey: Record<string, unknown> | undefined = after !== undefined && isStorableDocId(after) ? { pk, sk: after } : undefined;
      for (;;) {
        const page = await client.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
            ProjectionExpression: 'sk, #data',
            ExpressionAttributeNames: { '#data': 'data' },
            ExclusiveStartKey: startKey,
            // One more than asked, to know whether more remain without another round trip.
            Limit: limit + 1 - entries.length,
          }),
        );
        for (const item of page.Items ?? []) {
          const entry = { id: String(item.sk), json: String(item.data) };
          const size = Buffer.byteLength(JSON.stringify(entry.json)) + Buffer.byteLength(JSON.stringify(entry.id));
          // A page always holds one entry, and never passes the byte budget after that.
          if (entries.length === limit || (entries.length > 0 && bytes + size > maxBytes)) return { entries, more: true };
          entries.push(entry);
          bytes += size;
        }
        startKey = page.LastEvaluatedKey;
        if (!startKey) return { entries, more: false };
      }
    },

    async get(tenantId, collection, docId) {
      const k = key(tenantId, collection, docId);
      if (!k) return undefined;
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: k, ConsistentRead: true }));
      return Item ? String(Item.data) : undefined;
    },

    async replace(tenantId, collection, docId, json, signal) {
      const k = key(tenantId, collection, docId);
      if (!k) throw new RangeError('document key too long to store');
      if (signal?.aborted) throw new StoreUnavailableError(`replace of ${docId} abandoned at the deadline`);
      const { Attributes } = await client.send(
        new UpdateCommand({
          TableName: table,
          Key: k,
          UpdateExpression: 'SET #data = :data, #version = if_not_exists(#version, :zero) + :one, updatedAt = :now, tenantId = :tenant, #collection = :collection',
          ExpressionAttributeNames: { '#data': 'data', '#version': 'version', '#collection': 'collection' },
          ExpressionAttributeValues: { ':data': json, ':zero': 0, ':one': 1, ':now': new Date().toISOString(), ':tenant': tenantId, ':collection': collection },
          // Only attributes that existed come back: none means the document is new.
          ReturnValues: 'UPDATED_OLD',
        }),
        // At the deadline the SDK stops as well: none of its retries commits after the 504.
        { abortSignal: signal },
      );
      return { created: Attributes?.version === undefined };
    },

    async update(tenantId, collection, docId, change, signal) {
      const k = key(tenantId, collection, docId);
      if (!k) return undefined;
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: k, ConsistentRead: true }));
      let current = Item;
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
        if (!current) return undefined;
        if (signal?.aborted) throw new StoreUnavailableError(`update of ${docId} abandoned at the deadline`);
        const json = change(JSON.parse(String(current.data)) as JsonObject);
        try {
          await client.send(
            new UpdateCommand({
              TableName: table,
              Key: k,
              UpdateExpression: 'SET #data = :data, #version = :next, updatedAt = :now',
              ConditionExpression: '#version = :version',
              ExpressionAttributeNames: { '#data': 'data', '#version': 'version' },
              ExpressionAttributeValues: { ':data': json, ':version': current.version, ':next': Number(current.version) + 1, ':now': new Date().toISOString() },
              // A lost race hands back the winner's document: no second read to retry from it.
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
            // At the deadline the SDK stops as well: none of its retries commits after the 504.
            { abortSignal: signal },
          );
          return json;
        } catch (error) {
          if (signal?.aborted) throw new StoreUnavailableError(`update of ${docId} abandoned at the deadline`, { cause: error });
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
          current = error.Item ? unmarshall(error.Item) : undefined;
          await backoff(attempt);
        }
      }
      throw new StoreUnavailableError(`update of ${docId} kept conflicting after ${MAX_UPDATE_ATTEMPTS} attempts`);
    },
  };
}
