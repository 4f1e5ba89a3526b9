import type { ErrorObject } from 'ajv';
import type { RouteId } from '#shared/api/route-table';

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
