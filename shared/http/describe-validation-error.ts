/**
 * Turns ajv's first error into a sentence that names the offending field, so a client can fix
 * its request without reading the schema.
 */
import type { ErrorObject } from 'ajv';
import { VERSION_LIMIT, VERSION_NUMBER } from '#shared/schemas/document-version-schemas';
import { COLLECTION_NAME, NO_SEPARATORS, NOT_BLANK } from '#shared/schemas/identifiers';
import { DOCUMENT_LIMIT } from '#shared/schemas/list-documents-query';

export type ValidationTarget = 'path' | 'query' | 'body';

const PATTERN_MEANINGS: Record<string, string> = {
  [NOT_BLANK]: 'must not be blank',
  [NO_SEPARATORS]: "must not contain '/' or '\\'",
  [COLLECTION_NAME]: "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  [DOCUMENT_LIMIT]: 'must be a whole number from 1 to 1000',
  [VERSION_LIMIT]: 'must be a whole number from 1 to 100',
  [VERSION_NUMBER]: 'must be a version number: a whole number from 1, without leading zeros',
};

function fieldName(target: ValidationTarget, instancePath: string): string {
  const field = instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  if (field !== '') return target === 'query' ? `query parameter '${field}'` : `'${field}'`;
  return target === 'body' ? 'the request body' : `the ${target} parameters`;
}

export function describeValidationError(target: ValidationTarget, error: ErrorObject | undefined): string {
  if (!error) return `The ${target} is invalid.`;
  // A member name that breaks `propertyNames`: name the member, not the object holding it.
  const field =
    error.propertyName !== undefined
      ? `name '${error.propertyName}' in ${fieldName(target, error.instancePath)}`
      : fieldName(target, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${target === 'body' ? 'Property' : 'Parameter'} '${String(params.missingProperty)}' is required.`;
    case 'additionalProperties':
      if (target === 'query') return `Unknown query parameter '${String(params.additionalProperty)}'.`;
      if (target === 'path') return `Unknown path parameter '${String(params.additionalProperty)}'.`;
      return `Unknown property '${String(params.additionalProperty)}' in ${field}.`;
    case 'type': {
      const type = String(params.type);
      const article = /^[aeiou]/.test(type) ? 'an' : 'a';
      if (field === 'the request body' && type === 'object') return 'The request body must be a JSON object.';
      return `${capitalise(field)} must be ${article} ${type}.`;
    }
    case 'minLength':
      return Number(params.limit) === 1
        ? `${capitalise(field)} must not be empty.`
        : `${capitalise(field)} must be at least ${String(params.limit)} characters.`;
    case 'maxLength':
      return `${capitalise(field)} must be at most ${String(params.limit)} characters.`;
    case 'pattern':
      return `${capitalise(field)} ${PATTERN_MEANINGS[String(params.pattern)] ?? `must match ${String(params.pattern)}`}.`;
    case 'enum':
      return `${capitalise(field)} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}.`;
    default:
      return `${capitalise(field)} ${error.message ?? 'is invalid'}.`;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
