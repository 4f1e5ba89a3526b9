/**
 * The chain's validation steps and the validators they run: path and query parameters after
 * authorization, the parsed body after the parse, each against the route's schemas (400 naming
 * the field). The validators are precompiled (shared/schemas/compile-validators.ts) and each
 * handler imports only its own route's (shared/schemas/route-validators.generated.ts).
 */
import type { MiddlewareObj } from '@middy/core';
import type { ErrorObject } from 'ajv';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { badRequest } from '#shared/api/api-error';
import type { RouteId } from '#shared/api/route-table';
import type { ChainEvent } from './api-types.ts';
import { describeValidationError } from './describe-validation-error.ts';

/** A precompiled (ajv standalone) validator: a predicate that leaves its errors on itself. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** A route's id and the validators of its path, query and body (shared/schemas/route-validators.generated.ts). */
export interface RouteValidators {
  id: RouteId;
  path?: Validator;
  query?: Validator;
  body?: Validator;
}

/**
 * After authorization: path and query parameters against the route's schemas, and no repeated
 * query parameter.
 *
 * @example middy(handler).use(validateParameters(addInternalNote))
 */
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

/**
 * After the parse: the parsed body against the route's schema (`additionalProperties: false`).
 *
 * @example middy(handler).use(parseJsonBody(route)).use(validateBody(addInternalNote))
 */
export function validateBody({ body: validate }: RouteValidators): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return {
    before: ({ event }) => {
      if (validate && !validate(event.cxm?.body)) {
        throw badRequest(describeValidationError('body', validate.errors?.[0]));
      }
    },
  };
}
