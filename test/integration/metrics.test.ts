/**
 * The functions' own metrics, read from the EMF lines they write: NoteCreated once per committed
 * note (the real note handler on DynamoDB Local) and never on a refusal; AuthFailure for the
 * authorizer's and the chain's refusals; Throttled for each of our 503 ServiceUnavailable
 * answers; and nothing at all otherwise.
 */
import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { encodeCaller } from '#shared/auth/authorizer-context';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import type { ChainEvent } from '#shared/http/api-types';
import { type ApiHandler, createApiHandler } from '#shared/http/create-api-handler';
import { addInternalNote as addInternalNoteRoute } from '#shared/schemas/route-validators.generated';
import { createConversationsStore } from '#shared/store/conversations-store';
import { documentClient } from '#shared/store/dynamo-client';
import { StoreUnavailableError } from '#shared/store/store-unavailable-error';
import { type CapturedLines, captureJsonLines } from '#test/support/capture-json-lines';
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
let addInternalNote: ApiHandler;
let authorize: (event: APIGatewayRequestAuthorizerEvent) => Promise<unknown>;
let output: CapturedLines;

beforeAll(async () => {
  const { tables, ...store } = workerDynamo();
  pointAtLocalDynamo(store, tables);
  const conversations = createConversationsStore(documentClient(), tables.conversations);
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

const context = () => ({ getRemainingTimeInMillis: () => 10_000 }) as unknown as Context;

describe('NoteCreated', () => {
  it('is published once per 201, in namespace CXM with dimensions service and stage', async () => {
    expect((await addInternalNote(noteEvent('open', { body: 'first' }), context())).statusCode).toBe(201);
    expect(emfLines()).toHaveLength(1);
    const [line] = emfLines();
    expect(line!._aws.CloudWatchMetrics).toEqual([
      { Namespace: 'CXM', Dimensions: [['service', 'stage']], Metrics: [{ Name: 'NoteCreated', Unit: 'Count' }] },
    ]);
    expect(line).toMatchObject({ service: 'cxm-api', stage: 'local', NoteCreated: 1 });

    expect((await addInternalNote(noteEvent('open', { body: 'second' }), context())).statusCode).toBe(201);
    expect(emfLines()).toHaveLength(2);
    expect(counted()).toEqual({ NoteCreated: 2 });
  });

  it.each([
    ['409, closed conversation', 'closed', { body: 'x' }, 409],
    ['404, no such conversation', 'absent', { body: 'x' }, 404],
    ['400, blank body', 'open', { body: '   ' }, 400],
  ])('is not published on a %s, and nothing else is either', async (_name, conversationId, body, status) => {
    expect((await addInternalNote(noteEvent(conversationId, body), context())).statusCode).toBe(status);
    expect(emfLines()).toEqual([]);
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
