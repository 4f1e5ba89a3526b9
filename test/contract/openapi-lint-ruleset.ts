/**
 * The Spectral ruleset the OpenAPI document must pass with no error and no warning: every rule of
 * Spectral's OpenAPI ruleset and of the OWASP API Security ruleset, minus the rules below. Each
 * rule turned off says why, tied to a decision of functions/README.md or the contract; prefer
 * fixing the document.
 */
import type { RulesetDefinition } from '@stoplight/spectral-core';
import owasp from '@stoplight/spectral-owasp-ruleset';
import { oas } from '@stoplight/spectral-rulesets';
import type { RouteSpec } from '#shared/api/route-spec';
import { routes } from '#shared/api/route-table';
import type { SchemaId } from '#shared/schemas/schema-ids';

/** Where Spectral believes the document and the ruleset are; pointer overrides are matched against these. */
export const DOCUMENT_SOURCE = '/cxm/openapi.json';
export const RULESET_SOURCE = '/cxm/.spectral.js';

/** `openapi.json#/a/b~1c`: one place of the document, encoded as Spectral encodes result paths (URI fragment). */
function at(...segments: string[]): string {
  return `openapi.json#/${segments.map((segment) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;
}

const routeSpecs: readonly RouteSpec[] = routes;
const pathOf = (...ids: string[]) => routeSpecs.filter((route) => ids.includes(route.id)).map((route) => route.path);

/** Schemas only ever sent by the API, never accepted from a client. */
const RESPONSE_ONLY_SCHEMAS: SchemaId[] = [
  'AssistantReportList',
  'VocReportList',
  'DocumentList',
  'ErrorBody',
  'InternalNoteResponse',
  'JsonRpcBadRequest',
  'JsonRpcMessage',
  'JsonRpcMethodNotFound',
  'MessageOnlyErrorBody',
  'VocJobStatus',
];

/** Rules turned off in part of the document only. */
interface Relaxation {
  files: string[];
  rules: Record<string, 'off'>;
}

const relaxations: Relaxation[] = [
  {
    // Stateless MCP: GET and DELETE reach the MCP function only to be refused with 405 (stateless
    // Streamable HTTP, no server-sent event stream, no session to delete); they have no success
    // response.
    files: pathOf('mcpBots').flatMap((path) => [at('paths', path, 'get'), at('paths', path, 'delete')]),
    rules: { 'operation-success-response': 'off' },
  },
  {
    // API4 (resource consumption) is about what a client sends. These schemas are what the API
    // sends: reporting values as tenants imported them, stored document ids, messages quoting the
    // request, JSON-RPC bodies of the MCP SDK. A maxLength or pattern there would promise a bound no
    // write enforces. Every request-side string, integer and array stays checked.
    files: RESPONSE_ONLY_SCHEMAS.map((id) => at('components', 'schemas', id)),
    rules: {
      'owasp:api4:2023-string-limit': 'off',
      'owasp:api4:2023-string-restricted': 'off',
      'owasp:api4:2023-integer-limit': 'off',
      'owasp:api4:2023-integer-format': 'off',
      'owasp:api4:2023-array-limit': 'off',
    },
  },
  {
    // JSON-RPC 2.0 allows any string as a request id, the empty one included, and the MCP endpoint
    // echoes it as sent; a pattern would be untrue. Its length is bounded.
    files: [at('components', 'schemas', 'JsonRpcRequest', 'properties', 'id')],
    rules: { 'owasp:api4:2023-string-restricted': 'off' },
  },
  {
    // Error bodies, provisioning documents, reporting lists: window bounds, limits and cursors are
    // parsed by the handlers, whose refusals name the problem ("'from' must be before 'to'", "not a
    // cursor of this API"); a schema pattern would refuse first with a regular expression. Their
    // lengths stay bounded by the schema.
    files: pathOf('listDocuments', 'listAssistantConversations', 'listVocConversations').map((path) =>
      at('paths', path, 'get', 'parameters'),
    ),
    rules: { 'owasp:api4:2023-string-restricted': 'off' },
  },
];

export const lintRuleset = {
  extends: [
    [oas as RulesetDefinition, 'all'],
    [owasp as RulesetDefinition, 'all'],
  ],
  rules: {
    // Rate limits are API Gateway usage plans, which send no RateLimit or X-RateLimit headers;
    // a throttled request gets 429 with Retry-After, which the document declares on every operation.
    'owasp:api4:2023-rate-limit': 'off',
    // The chain's error mapping (shared/README.md): an unexpected fault is 502 BadGateway, as API Gateway
    // answers a crashed integration; no route answers 500 except the MCP endpoint, whose 500 is
    // documented.
    'owasp:api8:2023-define-error-responses-500': 'off',
    // Spec, Authentication 1: keys belong in trusted backends, never in browser code. The API sends
    // no CORS headers on purpose, so no browser page on another origin can call it.
    'owasp:api8:2023-define-cors-origin': 'off',
    // The scopes are role names of the bearer scheme, which OpenAPI 3.1 allows for any scheme
    // type ("the array MAY contain a list of role names"); this rule only knows OAuth flow scopes.
    // That every requirement names the defined scheme is checked by test/contract/openapi.test.ts.
    'oas3-operation-security-defined': 'off',
    // package.json is private and unlicensed, and the project has no public support contact:
    // a made-up licence or contact would be worse than none.
    'info-contact': 'off',
    'info-license': 'off',
    'license-url': 'off',
  },
  overrides: relaxations,
} satisfies RulesetDefinition;
