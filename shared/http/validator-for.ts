import type { ErrorObject } from 'ajv';
import type { SchemaId } from '#shared/schemas/schema-ids';
import * as validators from '#shared/schemas/validators.generated';

export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The precompiled validator of a schema (see shared/schemas/compile-validators.ts). */
export function validatorFor(id: SchemaId): Validator {
  return (validators as Record<SchemaId, Validator>)[id];
}
