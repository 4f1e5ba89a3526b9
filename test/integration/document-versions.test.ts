/**
 * A provisioning document's history, in the store against DynamoDB Local: every write makes the next
 * version in its own transaction (none for a replay or a refused precondition, none lost or repeated
 * under 30 merges at once), each version readable and listed newest first with how it came to be
 * and by which key, the retention's count and age applied, and a document written before versions
 * were kept starting its history at its present state.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { DEFAULT_VERSION_RETENTION, type VersionRetention } from '#shared/domain/documents/document-versions';
import { createDocumentsStore } from '#shared/store/documents-store';
import { createIdempotencyLedger } from '#shared/store/idempotency-ledger';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const { endpoint, credentials, tables } = workerDynamo();
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials }));
const storeKeeping = (retention: VersionRetention) =>
  createDocumentsStore(client, { documents: tables.documents, versions: tables.documentVersions }, retention);
const documents = storeKeeping(DEFAULT_VERSION_RETENTION);
const ledger = createIdempotencyLedger(client, tables.idempotency, 3_600_000);
const COLLECTION = 'bots';

afterAll(() => client.destroy());

const numbers = async (store: typeof documents, tenant: string, docId: string) =>
  (await store.listVersions(tenant, COLLECTION, docId, { limit: 1000 }))?.versions.map((version) => version.number);

describe('every write makes a version', () => {
  it('a create, a replace and a merge make versions 1, 2 and 3, each read back as written, by the key that wrote it', async () => {
    const tenant = uniqueTenant('versions');
    await documents.replace(tenant, COLLECTION, 'd', '{"a":1}', { by: 'key-1' });
    await documents.replace(tenant, COLLECTION, 'd', '{"a":2}', { by: 'key-2' });
    const merged = await documents.update(tenant, COLLECTION, 'd', (current) => JSON.stringify({ ...current, b: 1 }), {
      by: 'key-1',
    });
    expect(merged).toMatchObject({ kind: 'written', version: 3 });
    expect((await documents.read(tenant, COLLECTION, 'd'))?.version).toBe(3);

    const list = await documents.listVersions(tenant, COLLECTION, 'd', { limit: 10 });
    expect(list?.more).toBe(false);
    expect(list?.versions.map(({ number, change, keyId, bytes }) => ({ number, change, keyId, bytes }))).toEqual([
      { number: 3, change: 'merged', keyId: 'key-1', bytes: 13 },
      { number: 2, change: 'replaced', keyId: 'key-2', bytes: 7 },
      { number: 1, change: 'created', keyId: 'key-1', bytes: 7 },
    ]);
    // The list holds what the index holds: never a document.
    expect(list?.versions.every((entry) => !('json' in entry))).toBe(true);
    for (const [n, json] of [
      [3, '{"a":2,"b":1}'],
      [2, '{"a":2}'],
      [1, '{"a":1}'],
    ] as const)
      expect(await documents.readVersion(tenant, COLLECTION, 'd', n)).toMatchObject({ version: { json } });
    const first = await documents.readVersion(tenant, COLLECTION, 'd', 1);
    expect(first).toMatchObject({ kind: 'found', version: { number: 1, json: '{"a":1}' } });
    expect(await documents.readVersion(tenant, COLLECTION, 'd', 4)).toEqual({ kind: 'not-yet', newest: 3 });
    expect(await documents.readVersion(tenant, COLLECTION, 'absent', 1)).toEqual({ kind: 'not-yet' });
    expect(await documents.listVersions(tenant, COLLECTION, 'absent', { limit: 10 })).toBeUndefined();
  });

  it('pages newest first: a page of two, then the rest below it', async () => {
    const tenant = uniqueTenant('versions-pages');
    for (let n = 1; n <= 5; n++) await documents.replace(tenant, COLLECTION, 'd', `{"n":${n}}`);
    const page = await documents.listVersions(tenant, COLLECTION, 'd', { limit: 2 });
    expect(page?.versions.map((version) => version.number)).toEqual([5, 4]);
    expect(page?.more).toBe(true);
    const rest = await documents.listVersions(tenant, COLLECTION, 'd', { limit: 10, before: 4 });
    expect(rest?.versions.map((version) => version.number)).toEqual([3, 2, 1]);
    expect(rest?.more).toBe(false);
  });

  it('a replay of a keyed write and a refused precondition make none', async () => {
    const tenant = uniqueTenant('versions-replay');
    const record = {
      ledger,
      claim: { key: 'k-1', fingerprint: 'f' },
      response: () => ({ status: 201, bodyText: '{}', headers: {} }),
    };
    expect(await documents.replace(tenant, COLLECTION, 'd', '{"a":1}', { record })).toMatchObject({ kind: 'written' });
    expect(await documents.replace(tenant, COLLECTION, 'd', '{"a":1}', { record })).toMatchObject({ kind: 'recorded' });
    expect(
      await documents.replace(tenant, COLLECTION, 'd', '{"a":2}', {
        preconditions: { ifMatch: [{ opaque: 'stale', weak: false }] },
      }),
    ).toEqual({ kind: 'precondition-failed' });
    expect(await numbers(documents, tenant, 'd')).toEqual([1]);
  });

  it('30 merges at once make 30 versions, numbered without a gap or a repeat', async () => {
    const tenant = uniqueTenant('versions-race');
    await documents.replace(tenant, COLLECTION, 'd', '{"n":0}');
    const merges = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        documents.update(tenant, COLLECTION, 'd', (current) => JSON.stringify({ ...current, [`m${index}`]: index })),
      ),
    );
    expect(merges.every((merge) => merge.kind === 'written')).toBe(true);
    expect(await numbers(documents, tenant, 'd')).toEqual(Array.from({ length: 31 }, (_, index) => 31 - index));
    const last = await documents.read(tenant, COLLECTION, 'd');
    expect(Object.keys(JSON.parse(last!.json) as object)).toHaveLength(31);
  });
});

describe('retention', () => {
  it('keeps the last versions of its count: older numbers are gone, past the current one not yet', async () => {
    const keepingThree = storeKeeping({ ...DEFAULT_VERSION_RETENTION, keep: 3 });
    const tenant = uniqueTenant('versions-keep');
    for (let n = 1; n <= 5; n++) await keepingThree.replace(tenant, COLLECTION, 'd', `{"n":${n}}`);
    expect(await numbers(keepingThree, tenant, 'd')).toEqual([5, 4, 3]);
    expect(await keepingThree.readVersion(tenant, COLLECTION, 'd', 2)).toMatchObject({ kind: 'gone' });
    expect(await keepingThree.readVersion(tenant, COLLECTION, 'd', 3)).toMatchObject({ kind: 'found' });
    expect(await keepingThree.readVersion(tenant, COLLECTION, 'd', 6)).toMatchObject({ kind: 'not-yet' });
    // Pruned in the writes themselves: the table holds three, whoever reads it.
    expect(await numbers(documents, tenant, 'd')).toEqual([5, 4, 3]);
    // A page below what is kept (a cursor the retention passed) is empty, not an error.
    expect(await keepingThree.listVersions(tenant, COLLECTION, 'd', { limit: 10, before: 2 })).toEqual({
      versions: [],
      more: false,
    });
  });

  it('an item with no document where a version was (a prune of one gone already) is no version', async () => {
    const tenant = uniqueTenant('versions-stub');
    for (let n = 1; n <= 3; n++) await documents.replace(tenant, COLLECTION, 'd', `{"n":${n}}`);
    await client.send(
      new PutCommand({
        TableName: tables.documentVersions,
        Item: { pk: `${tenant}#${COLLECTION}#d`, sk: 2, expiresAt: Math.floor(Date.now() / 1000) + 3600 },
      }),
    );
    expect(await documents.readVersion(tenant, COLLECTION, 'd', 2)).toMatchObject({ kind: 'gone' });
    expect(await numbers(documents, tenant, 'd')).toEqual([3, 1]);
  });

  it('a version past its age is gone before TTL removes it; the current one is read from the document', async () => {
    const tenant = uniqueTenant('versions-age');
    await documents.replace(tenant, COLLECTION, 'd', '{"n":1}');
    await documents.replace(tenant, COLLECTION, 'd', '{"n":2}');
    const past = Math.floor(Date.now() / 1000) - 60;
    for (const sk of [1, 2])
      await client.send(
        new UpdateCommand({
          TableName: tables.documentVersions,
          Key: { pk: `${tenant}#${COLLECTION}#d`, sk },
          UpdateExpression: 'SET expiresAt = :past',
          ExpressionAttributeValues: { ':past': past },
        }),
      );
    expect(await documents.readVersion(tenant, COLLECTION, 'd', 1)).toMatchObject({ kind: 'gone' });
    expect(await documents.readVersion(tenant, COLLECTION, 'd', 2)).toMatchObject({
      kind: 'found',
      version: { number: 2, json: '{"n":2}' },
    });
    expect(await numbers(documents, tenant, 'd')).toEqual([2]);
  });
});

describe('a document written before versions were kept', () => {
  it('names its present state as its version, and keeps it as the first of its history at its next write', async () => {
    const tenant = uniqueTenant('versions-legacy');
    await client.send(
      new PutCommand({
        TableName: tables.documents,
        Item: {
          pk: `${tenant}#${COLLECTION}`,
          sk: 'd',
          data: '{"old":true}',
          version: 7,
          etag: 'legacy-tag',
          updatedAt: '2026-11-01T00:00:00.000Z',
          change: 'merged',
        },
      }),
    );
    expect(await numbers(documents, tenant, 'd')).toEqual([7]);
    expect(await documents.readVersion(tenant, COLLECTION, 'd', 7)).toMatchObject({
      kind: 'found',
      version: { number: 7, json: '{"old":true}', etag: 'legacy-tag', change: 'merged' },
    });
    expect(await documents.readVersion(tenant, COLLECTION, 'd', 6)).toMatchObject({ kind: 'gone' });

    await documents.update(tenant, COLLECTION, 'd', (current) => JSON.stringify({ ...current, new: true }));
    const list = await documents.listVersions(tenant, COLLECTION, 'd', { limit: 10 });
    expect(list?.versions.map(({ number, createdAt }) => [number, createdAt])).toEqual([
      [8, expect.any(String)],
      [7, '2026-11-01T00:00:00.000Z'],
    ]);
    expect(await documents.readVersion(tenant, COLLECTION, 'd', 7)).toMatchObject({
      version: { json: '{"old":true}' },
    });
  });

  it('on a stage keeping one version, its next write keeps only the new one', async () => {
    const keepingOne = storeKeeping({ ...DEFAULT_VERSION_RETENTION, keep: 1 });
    const tenant = uniqueTenant('versions-legacy-one');
    await client.send(
      new PutCommand({
        TableName: tables.documents,
        Item: { pk: `${tenant}#${COLLECTION}`, sk: 'd', data: '{"old":true}', version: 3, etag: 'legacy-tag' },
      }),
    );
    expect(await keepingOne.replace(tenant, COLLECTION, 'd', '{"new":true}')).toMatchObject({
      kind: 'written',
      version: 4,
    });
    expect(await numbers(keepingOne, tenant, 'd')).toEqual([4]);
    expect(await keepingOne.readVersion(tenant, COLLECTION, 'd', 3)).toMatchObject({ kind: 'gone' });
  });
});
