/**
 * Peer (a): the baseline's GetItem behind middy with Powertools Logger, the usual way that pair is
 * wired (a Logger at module scope, `injectLambdaContext` adding the Lambda context to its lines).
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { readBenchDocument } from '../read-bench-document.ts';

const logger = new Logger({ serviceName: 'bench-peer' });

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
  .use(injectLambdaContext(logger))
  .handler(async (event) => {
    const { tenantId, collection, docId } = event.pathParameters ?? {};
    const data = await readBenchDocument(tenantId, collection, docId);
    return data === undefined ? { statusCode: 404, body: '' } : { statusCode: 200, body: data };
  });
