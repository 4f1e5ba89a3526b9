/**
 * GET /openapi.json on the stage: the OpenAPI document (shared/openapi/build-openapi-document.ts)
 * for whoever can reach the API, without a key and outside the usage plan. It holds no secret and
 * no tenant data, and a caller needs it before it has a key. Its own small function: the API
 * functions stay as the route table makes them, and the document is not an operation of the route
 * table.
 */

import { AuthorizationType, LambdaIntegration, type Method, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { functionName } from '#infra/stage-names';
import { OPENAPI_DOCUMENT_HANDLER } from '#shared/api/route-spec';
import { OPENAPI_DOCUMENT_PATH } from '#shared/openapi/build-openapi-document';
import { reservedConcurrency } from '../stage/concurrency-reservations.ts';
import type { StageConfig } from '../stage/config.ts';
import { ApiFunction } from './api-function.ts';

/** The method's operation name, beside the route ids the API's other methods carry. */
export const OPENAPI_DOCUMENT_OPERATION = 'getOpenApiDocument';

export function addOpenApiDocument(
  scope: Construct,
  restApi: RestApi,
  config: StageConfig,
): { fn: ApiFunction; method: Method } {
  const fn = new ApiFunction(scope, 'OpenApiDocumentFunction', {
    entry: OPENAPI_DOCUMENT_HANDLER,
    functionName: functionName(config.stage, OPENAPI_DOCUMENT_OPERATION),
    description: `GET ${OPENAPI_DOCUMENT_PATH}: the OpenAPI document, without a key`,
    config,
    // Anyone can make it run: capped, so a flood cannot take the region's concurrency.
    ...reservedConcurrency(config, OPENAPI_DOCUMENT_OPERATION),
  });
  const method = restApi.root
    .resourceForPath(OPENAPI_DOCUMENT_PATH)
    .addMethod('GET', new LambdaIntegration(fn, { proxy: true, allowTestInvoke: false }), {
      authorizationType: AuthorizationType.NONE,
      apiKeyRequired: false,
      operationName: OPENAPI_DOCUMENT_OPERATION,
    });
  return { fn, method };
}
