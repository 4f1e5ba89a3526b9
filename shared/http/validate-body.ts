/** In the chain, after the parse: the parsed body against the route's schema (`additionalProperties: false`). */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { badRequest } from '#shared/api/api-error';
import type { ChainEvent } from './api-types.ts';
import { describeValidationError } from './describe-validation-error.ts';
import type { RouteValidators } from './validator.ts';

export function validateBody({ body: validate }: RouteValidators): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return {
    before: ({ event }) => {
      if (validate && !validate(event.cxm?.body)) {
        throw badRequest(describeValidationError('body', validate.errors?.[0]));
      }
    },
  };
}
