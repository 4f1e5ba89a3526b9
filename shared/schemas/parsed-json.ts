import type { JsonValue } from '#shared/domain/documents/json-value';

/**
 * A schema's type as the request holds it: parsed from JSON, so whatever the schema leaves open
 * (an object's values, `{}`) is still a JSON value, not `unknown`.
 */
export type ParsedJson<T> = unknown extends T ? JsonValue : T extends object ? { [K in keyof T]: ParsedJson<T[K]> } : T;
