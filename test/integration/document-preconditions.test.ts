/**
 * Conditional requests' preconditions are checked by DynamoDB, as conditions of the write (never
 * read-then-write), and the store tells a failed precondition from a lost race by the same rule in
 * code. This holds the two to each other on DynamoDB Local: for every kind of stored document
 * (absent, tagged, and one written before entity tags existed, whose tag is `v<version>`) and every
 * precondition form, each write path (a replace, a keyed replace, a merge, a keyed merge) writes
 * exactly when `preconditionsHold` says it may, and otherwise leaves the document as it was.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { DEFAULT_VERSION_RETENTION } from '#shared/domain/documents/document-versions';
import { type Preconditions, preconditionsHold } from '#shared/domain/documents/entity-tags';
import { tenantKey } from '#shared/store/composite-key';
import { createDocumentsStore } from '#shared/store/documents-store';
import { createIdempotencyLedger } from '#shared/store/idempotency-ledger';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const { endpoint, credentials, tables } = workerDynamo();
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials }));
const documents = createDocumentsStore(
  client,
  { documents: tables.documents, versions: tables.documentVersions },
  DEFAULT_VERSION_RETENTION,
);
const ledger = createIdempotencyLedger(client, tables.idempotency, 3_600_000);
const tenant = uniqueTenant('preconditions');
const COLLECTION = 'settings';

afterAll(() => client.destroy());

type State = 'absent' | 'tagged' | 'legacy';
const STATES: State[] = ['absent', 'tagged', 'legacy'];
const strong = (...opaque: string[]) => opaque.map((tag) => ({ opaque: tag, weak: false }));
const CURRENT = '@current';

/** Preconditions, with CURRENT standing for the stored document's tag (whatever its state). */
const PRECONDITIONS: Array<[string, Preconditions]> = [
  ['If-Match current', { ifMatch: strong(CURRENT) }],
  ['If-Match other', { ifMatch: strong('other') }],
  ['If-Match other, current', { ifMatch: strong('other', CURRENT) }],
  ['If-Match W/current', { ifMatch: [{ opaque: CURRENT, weak: true }] }],
  ['If-Match *', { ifMatch: '*' }],
  ['If-Match v1 (a legacy form)', { ifMatch: strong('v1') }],
  // Shaped like legacy tags but never issued: opaque, so they match nothing (and are no number to convert).
  ['If-Match v01', { ifMatch: strong('v01') }],
  ['If-Match v9007199254740993', { ifMatch: strong('v9007199254740993') }],
  ['If-None-Match v01', { ifNoneMatch: strong('v01') }],
  ['If-None-Match current', { ifNoneMatch: strong(CURRENT) }],
  ['If-None-Match W/current', { ifNoneMatch: [{ opaque: CURRENT, weak: true }] }],
  ['If-None-Match other', { ifNoneMatch: strong('other') }],
  ['If-None-Match other, current', { ifNoneMatch: strong('other', CURRENT) }],
  ['If-None-Match *', { ifNoneMatch: '*' }],
  ['If-Match current and If-None-Match other', { ifMatch: strong(CURRENT), ifNoneMatch: strong('other') }],
  ['If-Match * and If-None-Match *', { ifMatch: '*', ifNoneMatch: '*' }],
];

const resolve = (preconditions: Preconditions, current: string): Preconditions => {
  const swap = (condition: Preconditions['ifMatch']) =>
    condition === undefined || condition === '*'
      ? condition
      : condition.map((tag) => ({ ...tag, opaque: tag.opaque === CURRENT ? current : tag.opaque }));
  return { ifMatch: swap(preconditions.ifMatch), ifNoneMatch: swap(preconditions.ifNoneMatch) };
};

let docs = 0;
/** A fresh document in `state`; its tag (the legacy one is `v<version>`), undefined when absent. */
async function arrange(state: State): Promise<{ docId: string; etag: string | undefined }> {
  const docId = `doc-${++docs}`;
  if (state === 'absent') return { docId, etag: undefined };
  if (state === 'legacy') {
    // As the store wrote documents before conditional requests: data and version, no etag
    // attribute.
    await client.send(
      new PutCommand({
        TableName: tables.documents,
        Item: { pk: tenantKey(tenant, COLLECTION), sk: docId, data: '{"v":0}', version: 1 },
      }),
    );
    return { docId, etag: 'v1' };
  }
  const outcome = await documents.replace(tenant, COLLECTION, docId, '{"v":0}');
  if (outcome.kind !== 'written') throw new Error('could not arrange the document');
  return { docId, etag: outcome.etag };
}

type Write = (docId: string, preconditions: Preconditions) => Promise<{ kind: string }>;
let keys = 0;
const record = () => ({
  ledger,
  claim: { key: `key-${++keys}`, fingerprint: 'f' },
  response: () => ({ status: 200, bodyText: '{}', headers: {} }),
});
const WRITES: Array<[string, Write]> = [
  ['replace', (docId, preconditions) => documents.replace(tenant, COLLECTION, docId, '{"v":1}', { preconditions })],
  [
    'keyed replace',
    (docId, preconditions) =>
      documents.replace(tenant, COLLECTION, docId, '{"v":1}', { preconditions, record: record() }),
  ],
  ['merge', (docId, preconditions) => documents.update(tenant, COLLECTION, docId, () => '{"v":1}', { preconditions })],
  [
    'keyed merge',
    (docId, preconditions) =>
      documents.update(tenant, COLLECTION, docId, () => '{"v":1}', { preconditions, record: record() }),
  ],
];

describe.each(WRITES)('%s', (name, write) => {
  it.each(STATES)('on a %s document, writes exactly when the preconditions hold', async (state) => {
    for (const [label, template] of PRECONDITIONS) {
      const { docId, etag } = await arrange(state);
      const preconditions = resolve(template, etag ?? 'never-stored');
      const before = await documents.read(tenant, COLLECTION, docId);
      const outcome = await write(docId, preconditions);
      const may = preconditionsHold(etag, preconditions);
      // A merge of an absent document is a 404 when no precondition refused it first.
      const expected = !may
        ? 'precondition-failed'
        : state === 'absent' && name.includes('merge')
          ? 'absent'
          : 'written';
      expect(outcome.kind, `${name}, ${state} document, ${label}`).toBe(expected);
      const after = await documents.read(tenant, COLLECTION, docId);
      if (expected === 'written') expect(after?.json, `${label}: written`).toBe('{"v":1}');
      else expect(after, `${label}: left as it was`).toEqual(before);
    }
  });
});
