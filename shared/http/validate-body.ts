/** Chain step 5: the parsed body against the route's schema (`additionalProperties: false`). */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { RouteSpec } from '#shared/routes';
import { badRequest } from './api-error.ts';
import type { ChainEvent } from './api-types.ts';
import { describeValidationError } from './describe-validation-error.ts';
import { validatorFor } from './validator-for.ts';

export function validateBody(route: RouteSpec): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  const validate = route.schemas.body ? validatorFor(route.schemas.body) : undefined;
  return {
    before: ({ event }) => {
      if (validate && !validate(event.cxm?.body)) {
        throw badRequest(describeValidationError('body', validate.errors?.[0]));
      }
    },
  };
}
