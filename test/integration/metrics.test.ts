/**
 * The functions' own metrics, read from the EMF lines they write: NoteCreated once per committed
 * note, counted by the webhooks' fan-out from the conversations stream of DynamoDB Local (never by
 * the note's function, and never for a record it leaves for retry); AuthFailure for the
 * authorizer's and the chain's refusals; Throttled for each of our 503 ServiceUnavailable
 * answers; and nothing at all otherwise.
 */
import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { matchesEventPattern } from '#infra/local/emulators/match-event-pattern';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { encodeCaller } from '#shared/auth/authorizer-context';
import { buildNote } from '#shared/domain/notes/build-note';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import { newNoteId } from '#shared/domain/notes/new-note-id';
import type { ChainEvent } from '#shared/http/api-types';
import { type ApiHandler, createApiHandler } from '#shared/http/create-api-handler';
import { logger } from '#shared/http/logger';
import { publishMetrics } from '#shared/http/metrics';
import { addInternalNote as addInternalNoteRoute } from '#shared/schemas/route-validators.generated';
import type { DeliveryQueue } from '#shared/store/delivery-queue';
import { documentClient } from '#shared/store/dynamo-client';
import { StoreUnavailableError } from '#shared/store/store-unavailable-error';
import { bindTableStores, type TableStores } from '#shared/store/table-stores';
import { WEBHOOK_STREAM_SOURCES } from '#shared/webhook-functions';
import { fanOutRecords } from '#shared/webhooks/run-webhook-functions';
import { type CapturedLines, captureJsonLines } from '#test/support/capture-json-lines';
import { readTableStream, type StreamRecord } from '#test/support/read-table-stream';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

// The test config turns metrics off; here they are the subject. Before any import builds Metrics.
vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

interface EmfLine {
  _aws: {
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
  [field: string]: unknown;
}

const tenant = uniqueTenant('metrics');
let dynamo: ReturnType<typeof workerDynamo>;
let stores: TableStores;
let conversations: TableStores['conversations'];
let addInternalNote: ApiHandler;
let authorize: (event: APIGatewayRequestAuthorizerEvent) => Promise<unknown>;
let output: CapturedLines;

beforeAll(async () => {
  dynamo = workerDynamo();
  const { tables, ...store } = dynamo;
  pointAtLocalDynamo(store, tables);
  stores = bindTableStores(documentClient(), tables);
  conversations = stores.conversations;
  await conversations.putConversation(tenant, conversationWithDefaults({ id: 'open' }));
  await conversations.putConversation(tenant, conversationWithDefaults({ id: 'closed', status: 'closed' }));
  // Imported once the table names are in the environment, as a deployed function reads them.
  addInternalNote = (await import('#functions/conversations/add-internal-note')).handler as ApiHandler;
  authorize = (await import('#functions/authorizer')).handler;
});

beforeEach(() => {
  output = captureJsonLines();
});

afterEach(() => output.restore());

const emfLines = () => output.lines.filter((line): line is EmfLine => '_aws' in line);

/** Metric name -> summed value over every EMF line written so far. */
function counted(): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const line of emfLines()) {
    for (const metric of line._aws.CloudWatchMetrics.flatMap((set) => set.Metrics)) {
      totals[metric.Name] = (totals[metric.Name] ?? 0) + Number(line[metric.Name]);
    }
  }
  return totals;
}

function noteEvent(
  conversationId: string,
  body: unknown,
  caller = { keyId: 'k1', tenants: [tenant], scopes: ['cxm:*'] },
): ChainEvent {
  return {
    resource: '/api/v1/cxm/tenants/{tenantId}/conversations/{conversationId}/internal-notes',
    path: `/api/v1/cxm/tenants/${tenant}/conversations/${conversationId}/internal-notes`,
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { tenantId: tenant, conversationId },
    stageVariables: null,
    requestContext: { requestId: 'req-1', authorizer: encodeCaller(caller) } as unknown as ChainEvent['requestContext'],
    body: JSON.stringify(body),
    isBase64Encoded: false,
  };
}

/** The conversations stream's records of the notes `ids` of `tenants`, in the order written, as the fan-out's mapping hands them over. */
async function noteRecords(tenants: readonly string[], ids: readonly string[]) {
  const { pattern } = WEBHOOK_STREAM_SOURCES.find((source) => source.table === 'conversations')!;
  const idOf = (record: StreamRecord) => record.dynamodb?.NewImage?.id?.S;
  const tenantOf = (record: StreamRecord) => record.dynamodb?.NewImage?.tenantId?.S;
  const records = (await readTableStream(dynamo, dynamo.tables.conversations))
    .filter((record) => tenants.includes(tenantOf(record) ?? '') && ids.includes(idOf(record) ?? ''))
    .filter((record) => matchesEventPattern(pattern, record));
  expect(records.map(idOf)).toEqual(ids);
  return records;
}

const context = () => ({ getRemainingTimeInMillis: () => 10_000 }) as unknown as Context;

describe('NoteCreated', () => {
  it("is not published by the note's own function: a 201 writes no EMF line", async () => {
    expect((await addInternalNote(noteEvent('open', { body: 'first' }), context())).statusCode).toBe(201);
    expect(emfLines()).toEqual([]);
  });

  it.each([
    ['409, closed conversation', 'closed', { body: 'x' }, 409],
    ['404, no such conversation', 'absent', { body: 'x' }, 404],
    ['400, blank body', 'open', { body: '   ' }, 400],
  ])('is not published on a %s, and nothing else is either', async (_name, conversationId, body, status) => {
    expect((await addInternalNote(noteEvent(conversationId, body), context())).statusCode).toBe(status);
    expect(emfLines()).toEqual([]);
  });

  it('is published by the fan-out once per note record it keeps: a record given again counts on the pass that keeps it', async () => {
    // Three committed notes, the second of a tenant whose endpoints cannot be read on the first pass.
    const other = uniqueTenant('metrics-other');
    await conversations.putConversation(other, conversationWithDefaults({ id: 'open' }));
    // Fresh ids: a note's id is its transaction's ClientRequestToken, which DynamoDB Local keeps for
    // ten minutes across every file of the run.
    const owners = [tenant, other, tenant];
    const ids = owners.map((_, index) => newNoteId(Date.now() + index));
    for (const [index, id] of ids.entries())
      await conversations.addNote(owners[index]!, 'open', { ...buildNote(id, new Date()), body: id }, new Date());
    const records = await noteRecords([tenant, other], ids);
    let unreadable = true;
    const endpoints = {
      list: (tenantId: string) => {
        if (tenantId !== other || !unreadable) return stores.webhookEndpoints.list(tenantId);
        unreadable = false;
        return Promise.reject(new Error('endpoints unreadable'));
      },
    };
    const accepting: DeliveryQueue = { send: async () => {} };
    const fanOut = { endpoints, deliveries: stores.webhookDeliveries, queue: accepting, logger };
    const pass = async (batch: typeof records, queue: DeliveryQueue = accepting) => {
      const answer = await fanOutRecords({ ...fanOut, queue }, batch as never, () => 'conversations');
      publishMetrics();
      return answer.batchItemFailures.length;
    };

    expect(await pass(records)).toBe(1);
    expect(counted()).toEqual({ NoteCreated: 1 });
    expect(emfLines()[0]!._aws.CloudWatchMetrics).toEqual([
      { Namespace: 'CXM', Dimensions: [['service', 'stage']], Metrics: [{ Name: 'NoteCreated', Unit: 'Count' }] },
    ]);
    expect(emfLines()[0]).toMatchObject({ service: 'cxm-api', stage: 'local', NoteCreated: 1 });
    // The stream gives the batch again from the record that failed, as Lambda does.
    expect(await pass(records.slice(1))).toBe(0);
    expect(counted()).toEqual({ NoteCreated: 3 });
    // A queue that refuses the tasks keeps none of the records: nothing is counted.
    const refusing: DeliveryQueue = { send: () => Promise.reject(new Error('queue down')) };
    expect(await pass(records, refusing)).toBe(1);
    expect(counted()).toEqual({ NoteCreated: 3 });
  });
});

describe('AuthFailure and Throttled', () => {
  it('the chain counts a 403 (tenant not held) as AuthFailure, and no note', async () => {
    const response = await addInternalNote(
      noteEvent('open', { body: 'x' }, { keyId: 'k2', tenants: ['someone-else'], scopes: ['cxm:*'] }),
      context(),
    );
    expect(response.statusCode).toBe(403);
    expect(counted()).toEqual({ AuthFailure: 1 });
  });

  it('the chain counts a 401 (no authorizer context) as AuthFailure', async () => {
    const event = noteEvent('open', { body: 'x' });
    event.requestContext = { requestId: 'req-2', authorizer: null } as unknown as ChainEvent['requestContext'];
    expect((await addInternalNote(event, context())).statusCode).toBe(401);
    expect(counted()).toEqual({ AuthFailure: 1 });
  });

  it('the chain counts our 503 from store throttling as Throttled', async () => {
    const throttled = createApiHandler(addInternalNoteRoute, () =>
      Promise.reject(new ThrottlingException({ message: 'slow down', $metadata: {} })),
    );
    expect((await throttled(noteEvent('open', { body: 'x' }), context())).statusCode).toBe(503);
    expect(counted()).toEqual({ Throttled: 1 });
  });

  it('counts every 503 ServiceUnavailable as Throttled, a store unavailable for another reason too', async () => {
    const unavailable = createApiHandler(addInternalNoteRoute, () =>
      Promise.reject(new StoreUnavailableError('transaction conflicts outlasted the retries')),
    );
    expect((await unavailable(noteEvent('open', { body: 'x' }), context())).statusCode).toBe(503);
    expect(counted()).toEqual({ Throttled: 1 });
  });

  it('the authorizer counts a refused key as AuthFailure and publishes it before refusing', async () => {
    const event = {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:api/dev/POST/x',
      headers: { Authorization: 'Bearer nope' },
    } as unknown as APIGatewayRequestAuthorizerEvent;
    await expect(authorize(event)).rejects.toThrow('Unauthorized');
    expect(counted()).toEqual({ AuthFailure: 1 });
  });
});
