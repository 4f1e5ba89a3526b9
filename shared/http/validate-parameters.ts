/** In the chain, after authorization: path and query parameters against the route's schemas (400). */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { badRequest } from '#shared/api/api-error';
import type { ChainEvent } from './api-types.ts';
import { describeValidationError } from './describe-validation-error.ts';
import type { RouteValidators } from './validator.ts';

export function validateParameters({
  path: validatePath,
  query: validateQuery,
}: RouteValidators): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return {
    before: ({ event }) => {
      if (validatePath && !validatePath(event.pathParameters ?? {})) {
        throw badRequest(describeValidationError('path', validatePath.errors?.[0]));
      }
      const query = event.queryStringParameters ?? {};
      if (validateQuery && !validateQuery(query)) {
        throw badRequest(describeValidationError('query', validateQuery.errors?.[0]));
      }
      // A repeated parameter would silently lose all but one value: refuse it instead.
      for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
        if (values && values.length > 1) throw badRequest(`Query parameter '${name}' is given more than once.`);
      }
    },
  };
}
