/**
 * The warm-up's stage: make-compile-cache.cjs answers each AWS call of a warm-up request as a
 * stage holding WARM_UP_STAGE_ITEMS would. A document's routes find the document their warm-up
 * request names and answer as for a stored one, a write's included, so the compile cache holds
 * that code; on an empty stage the same requests end at a 404 (so the check can fail). The
 * handlers run in process over the real DynamoDB client, whose HTTP layer the maker's answers
 * stand in for.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  warmUpEvent,
  warmUpStageItems,
  warmUpTableEnvironment,
  warmUpTableName,
} from '#infra/cdk/constructs/warm-up-requests';
import { PROJECT_ROOT } from '#infra/project-root';
import { type RouteId, routeById } from '#shared/api/route-table';

type StageAnswer = (
  target: string | undefined,
  path: string,
  body: string,
  stage: { secret: string; items: Record<string, unknown> },
) => [number, unknown];

const { warmUpStageAnswer } = createRequire(import.meta.url)(
  join(PROJECT_ROOT, 'infra/cdk/constructs/make-compile-cache.cjs'),
) as { warmUpStageAnswer: StageAnswer };

/** What the stage holds while a test runs: the warm-up's, or nothing. */
let items: Record<string, unknown> = {};

const CONTEXT = { getRemainingTimeInMillis: () => 5_000, awsRequestId: 'warm-up' } as unknown as Context;

beforeAll(async () => {
  // The handlers bind their tables by these names when they load; the SDK signs as a deployed function's would.
  Object.assign(process.env, warmUpTableEnvironment());
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'warm-up',
    AWS_SECRET_ACCESS_KEY: 'warm-up',
  });
  const { documentClient } = await import('#shared/store/dynamo-client');
  documentClient().middlewareStack.add(
    (_next) => async (args) => {
      const request = args.request as { headers: Record<string, string>; path: string; body: string | Uint8Array };
      // As the maker's server reads it: the body's bytes as text (the SDK's byte body warns when read as a string).
      const { body: sent } = request;
      const body =
        typeof sent === 'string' ? sent : Buffer.from(sent.buffer, sent.byteOffset, sent.byteLength).toString('utf8');
      const [status, answer] = warmUpStageAnswer(request.headers['x-amz-target'], request.path, body, {
        secret: '',
        items,
      });
      const headers = { 'content-type': 'application/x-amz-json-1.0' };
      return { response: { statusCode: status, headers, body: Buffer.from(JSON.stringify(answer)) } };
    },
    // Innermost: where the HTTP handler would send the signed request to the maker's server.
    { step: 'deserialize', priority: 'low', name: 'warmUpStage' },
  );
});

async function warmUp(id: RouteId): Promise<number> {
  const { handler } = (await import(pathToFileURL(join(PROJECT_ROOT, routeById(id).handler)).href)) as {
    handler: (event: unknown, context: Context) => Promise<APIGatewayProxyResult>;
  };
  return (await handler(warmUpEvent(routeById(id).handler), CONTEXT)).statusCode;
}

const DOCUMENT_ROUTES: RouteId[] = [
  'getCurrentDocument',
  'replaceCurrentDocument',
  'mergeCurrentDocument',
  'getDocumentVersion',
  'restoreDocumentVersion',
];

describe("a document's warm-up request, on the warm-up's stage", () => {
  it('finds the document it names and answers as for a stored one, its write included', async () => {
    items = warmUpStageItems();
    const answers = Object.fromEntries(await Promise.all(DOCUMENT_ROUTES.map(async (id) => [id, await warmUp(id)])));
    expect(answers).toEqual(Object.fromEntries(DOCUMENT_ROUTES.map((id) => [id, 200])));
  });

  it('on an empty stage ends at a 404 (the check above can fail)', async () => {
    items = {};
    expect(await warmUp('restoreDocumentVersion')).toBe(404);
    expect(await warmUp('mergeCurrentDocument')).toBe(404);
  });

  it('a GetItem of a table the stage holds nothing in finds nothing', () => {
    const [status, answer] = warmUpStageAnswer(
      'DynamoDB_20120810.GetItem',
      '/',
      JSON.stringify({ TableName: warmUpTableName('keys'), Key: { keyHash: { S: 'k' } } }),
      { secret: '', items: warmUpStageItems() },
    );
    expect([status, answer]).toEqual([200, {}]);
  });
});
