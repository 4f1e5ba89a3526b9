/**
 * What an operation's docs hold beyond its route entry and its schemas (each area's
 * `<area>-docs.ts`), and the helpers that write their examples. Paths, methods, scopes, limits and
 * schemas are never repeated in docs: shared/openapi/build-openapi-document.ts takes them from
 * the route table. Examples follow the schemas and the decisions of functions/README.md (epoch ms,
 * ISO 8601, identifiers).
 */
import type { ApiError } from './api-error.ts';

/** Response headers a success may carry beyond X-Request-Id (components/headers). */
export type SuccessHeader = 'Link' | 'ETag' | 'Content-Location' | 'Cache-Control';

/** An example of a request or an answer, as OpenAPI's Example Object has it. */
export interface DocExample {
  summary: string;
  description?: string;
  value: unknown;
}

export interface SuccessDocs {
  description: string;
  headers?: SuccessHeader[];
  /** The status answers without a body (MCP's 202 to a notification). */
  empty?: true;
  examples?: Record<string, DocExample>;
}

export interface OperationDocs {
  /** Behaviour a caller must know; scope, limits and statuses are added from the route table. */
  description: string;
  requestExamples?: Record<string, DocExample>;
  /** One entry per success status of the route. */
  success: Record<number, SuccessDocs>;
  /** Examples of the route's own error statuses (its `errors`); gateway errors have shared ones. */
  errorExamples: Partial<Record<number, Record<string, DocExample>>>;
}

/** An area's docs: its tag's description (the area is the folder of its handlers) and each operation's. */
export interface AreaDocs<Id extends string> {
  description: string;
  operations: Record<Id, OperationDocs>;
}

/**
 * An error body as the chain sends it.
 *
 * @example error('BadRequest', 'The request body must be a JSON object.')
 */
export const error = (code: string, message: string) => ({ code, message });

/**
 * The body the chain sends for an ApiError, so the example says exactly what the code says.
 *
 * @example errorOf(preconditionFailed('bot-billing'))
 */
export const errorOf = (apiError: ApiError) => error(apiError.code, apiError.message);

/**
 * A named example.
 *
 * @example example('A note', { body: 'Customer called back.' })
 */
export const example = (summary: string, value: unknown): DocExample => ({ summary, value });
