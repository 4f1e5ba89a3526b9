import type { SchemaId } from '#shared/schemas/schema-ids';
import * as validators from '#shared/schemas/validators.generated';
import type { Validator } from './validate-request.ts';

/**
 * The precompiled validator of a schema (see shared/schemas/compile-validators.ts), looked up by
 * id: for tools, tests and the CLI. The functions' chain takes its route's validators by name
 * instead (shared/schemas/route-validators.generated.ts), so a bundle holds only those.
 */
export function validatorFor(id: SchemaId): Validator {
  return (validators as Record<SchemaId, Validator>)[id];
}
