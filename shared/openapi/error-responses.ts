/**
 * The error side of every operation: which statuses a route can answer, and what each looks like. A
 * route's own `errors` come from the route table; the rest every route can get from the gateway or
 * the chain (401, 403 and 429 before the function runs; 400 for path and query; 502, 503, 504 for
 * faults: shared/README.md, the way of a request). Messages come from the code that sends them, not
 * from here.
 */
import {
  type ApiError,
  badGateway,
  foreignHost,
  foreignOrigin,
  gatewayTimeout,
  idempotencyKeyReused,
  payloadTooLarge,
  serviceUnavailable,
} from '#shared/api/api-error';
import type { RouteSpec } from '#shared/api/route-spec';
import { type GatewayResponseSpec, gatewayResponses } from '#shared/http/gateway-responses';
import type { SchemaId } from '#shared/schemas/schema-ids';
import type { ExampleObject, HeaderObject, Reference, ResponseObject } from './openapi-types.ts';

const COMPONENT_HEADERS = '#/components/headers/';
const COMPONENT_RESPONSES = '#/components/responses/';

/**
 * Reusable headers: every response has a request id; 429 and 503 say when to retry; a 401 names
 * the scheme; a document's version is its ETag and its own URL, and may be cached; a replayed write says so.
 */
export const headerComponents: Record<
  | 'X-Request-Id'
  | 'Retry-After'
  | 'WWW-Authenticate'
  | 'Link'
  | 'ETag'
  | 'Content-Location'
  | 'Cache-Control'
  | 'Idempotent-Replayed',
  HeaderObject
> = {
  'X-Request-Id': {
    description:
      'Identifies the request in the logs; quote it when reporting a problem. Present on every response, errors included.',
    required: true,
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 3600 },
    example: 1,
  },
  'WWW-Authenticate': {
    description:
      'The authentication scheme the API takes (RFC 6750): send `Authorization: Bearer <key>` with a valid key of the tenant.',
    required: true,
    schema: { type: 'string', const: 'Bearer' },
  },
  Link: {
    description: 'The next page (RFC 8288), present only when more entries remain. Follow the URL as it is.',
    required: false,
    schema: { type: 'string', maxLength: 8192, pattern: '^<[^>]+>; rel="next"$' },
  },
  ETag: {
    description:
      "The document version's strong entity tag (RFC 9110): opaque, new with every write. Send it back in `If-Match` to write " +
      'only over this version, or in `If-None-Match` to read only when it changed.',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^"[\\x21\\x23-\\x7E]+"$' },
    example: '"k3Jv0cQ9Tz2Wm8Ld"',
  },
  'Content-Location': {
    description:
      "The URL of the document's version this answer holds (`.../versions/{version}`): unlike `versions/current`, it " +
      'names the same document for as long as the stage keeps the version.',
    required: true,
    schema: { type: 'string', format: 'uri', maxLength: 4096, pattern: '/versions/[1-9][0-9]{0,14}$' },
    example: 'https://api.example.com/api/v1/provisioning/tenants/acme/bots/bot-billing/versions/4',
  },
  'Cache-Control': {
    description: "A version never changes: a private cache (the caller's own) may keep it without asking again.",
    required: true,
    schema: { type: 'string', const: 'private, max-age=31536000, immutable' },
  },
  'Idempotent-Replayed': {
    description:
      'Present (`true`) when this answer is the recorded answer of an earlier request with the same `Idempotency-Key`: nothing was ' +
      'written this time. Absent on the first execution.',
    required: false,
    schema: { type: 'string', const: 'true' },
  },
};

export const headerRef = (name: keyof typeof headerComponents): Reference => ({ $ref: `${COMPONENT_HEADERS}${name}` });

const example = (summary: string, body: { code: string; message: string }): ExampleObject => ({
  summary,
  value: { code: body.code, message: body.message },
});
const fromGateway = (summary: string, spec: GatewayResponseSpec) => example(summary, spec);
const fromChain = (summary: string, error: ApiError) => example(summary, error);

interface StatusDocs {
  /** Name of the shared response component, for the statuses every route answers alike. */
  component?: string;
  description: string;
  retryAfter?: true;
  /** A 401: it carries the Bearer challenge. */
  challenge?: true;
  examples: Record<string, ExampleObject>;
}

/** Statuses every operation can answer, as the gateway and the chain answer them. */
const commonStatuses: Record<number, StatusDocs> = {
  400: {
    description:
      'The path, query, body or a request header is invalid; the message names the offending field or header.',
    examples: {
      parameters: fromGateway(
        'A path segment that is not valid percent-encoding',
        gatewayResponses.BAD_REQUEST_PARAMETERS,
      ),
    },
  },
  401: {
    component: 'Unauthenticated',
    description:
      'The Authorization header is missing or not a Bearer token, or the key is unknown, revoked or expired.',
    challenge: true,
    examples: { unauthenticated: fromGateway('No valid key', gatewayResponses.UNAUTHORIZED) },
  },
  403: {
    component: 'PermissionDenied',
    description: "The key does not hold this path's tenant, or lacks the operation's scope.",
    examples: { denied: fromGateway('Tenant or scope not granted', gatewayResponses.ACCESS_DENIED) },
  },
  429: {
    component: 'RateLimitExceeded',
    description:
      "The key's rate limit was exceeded, or a limit of the operation's own (its description says which); `Retry-After` says when to try again.",
    retryAfter: true,
    examples: { throttled: fromGateway('Too many requests', gatewayResponses.THROTTLED) },
  },
  502: {
    component: 'BadGateway',
    description: 'A downstream request failed. If the request was a write, it may have completed.',
    examples: {
      downstream: fromChain('A downstream request failed', badGateway()),
      gateway: fromGateway('The gateway could not complete the request', gatewayResponses.DEFAULT_5XX),
    },
  },
  503: {
    component: 'ServiceUnavailable',
    description: 'A required service is unavailable. If the request was a write, it may have completed.',
    retryAfter: true,
    examples: {
      unavailable: fromChain('A store is unavailable', serviceUnavailable(1)),
      authorizer: fromGateway('The key could not be checked', gatewayResponses.AUTHORIZER_FAILURE),
    },
  },
  504: {
    component: 'GatewayTimeout',
    description: 'The request timed out. If the request was a write, it may have completed.',
    examples: { timeout: fromChain('Timed out', gatewayTimeout()) },
  },
};

/** Statuses only some routes answer; their examples come with the route (shared/openapi/operation-docs.ts). */
const routeStatuses: Record<number, Omit<StatusDocs, 'examples'>> = {
  404: { description: 'The resource is not available in this tenant.' },
  405: { description: 'This method is not allowed here; `Allow` names the one that is.' },
  409: { description: 'The resource, in its current state, refuses the operation.' },
  410: {
    description:
      "The resource existed and is kept no more (code `NotFound`): a version the stage's retention removed. The message says " +
      'what the stage keeps; the versions list names those still kept.',
  },
  412: {
    description:
      '`If-Match` or `If-None-Match` does not hold for the current document (code `Conflict`): it changed since you read it, it is ' +
      'absent (If-Match), or it exists (If-None-Match: *). Nothing was written; GET it for its current ETag.',
  },
  413: { description: 'The request body is larger than the operation accepts.' },
  422: {
    description:
      'The `Idempotency-Key` was already used, within its retention, for a different request (another method, path or body). ' +
      'Nothing was written.',
  },
  500: { description: 'The request failed unexpectedly; the body holds only a message.' },
};

/** The 403 of a route that checks the request's Origin: one more reason to be refused. */
const originChecked403: Omit<StatusDocs, 'examples'> = {
  description:
    "The key does not hold this path's tenant, or lacks the operation's scope; or the request has an `Origin` header naming an " +
    'origin the stage does not allow (DNS-rebinding protection: server-side callers send no Origin), or, on the local gateway, ' +
    'a `Host` it does not serve.',
};

/** The shared error responses, as `components/responses`. */
export function errorResponseComponents(useSchema: (id: SchemaId) => string): Record<string, ResponseObject> {
  const components: Record<string, ResponseObject> = {};
  for (const docs of Object.values(commonStatuses)) {
    if (docs.component) components[docs.component] = errorResponse(docs, useSchema('ErrorBody'), docs.examples);
  }
  return components;
}

export interface ErrorResponseInput {
  route: RouteSpec;
  /** The route's main method, or one of its other methods (which its function refuses with 405). */
  main: boolean;
  routeExamples: Partial<Record<number, Record<string, ExampleObject>>>;
  /** Records each schema the responses use, so components/schemas holds exactly those. */
  useSchema: (id: SchemaId) => string;
}

/** The error statuses of one operation, in ascending order. */
function errorStatuses(route: RouteSpec, main: boolean): number[] {
  const statuses = new Set([400, 401, 403, 429, 502, 503, 504]);
  if (main) {
    for (const status of route.errors) if (status !== 405) statuses.add(status);
    if (route.maxBodyBytes !== undefined) statuses.add(413);
  } else {
    statuses.add(405);
  }
  // Faults of a message-only route are its 500; the gateway's own 502, 503 and 504 stay.
  if (route.faultBody === 'message-only') statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
}

export function errorResponses({
  route,
  main,
  routeExamples,
  useSchema,
}: ErrorResponseInput): Record<string, ResponseObject | Reference> {
  const responses: Record<string, ResponseObject | Reference> = {};
  for (const status of errorStatuses(route, main)) {
    const common = commonStatuses[status];
    const own = ownExamples(route, status, routeExamples);
    const ownSchema = route.schemas.errorBodies?.[status];
    if (common?.component && own === undefined && ownSchema === undefined) {
      responses[status] = { $ref: `${COMPONENT_RESPONSES}${common.component}` };
      continue;
    }
    const docs = status === 403 && route.checksOrigin ? originChecked403 : (common ?? routeStatuses[status]);
    if (!docs) throw new Error(`route ${route.id}: no documentation for status ${status}`);
    if (own === undefined && common === undefined)
      throw new Error(`route ${route.id}: status ${status} needs examples in operation-docs.ts`);
    const schema =
      ownSchema ?? (status === 500 && route.faultBody === 'message-only' ? 'MessageOnlyErrorBody' : 'ErrorBody');
    const response = errorResponse(docs, useSchema(schema), { ...own, ...common?.examples });
    if (status === 405) response.headers = { ...response.headers, Allow: allowHeader(route) };
    responses[status] = response;
  }
  return responses;
}

function errorResponse(
  docs: Omit<StatusDocs, 'examples'>,
  schemaRef: string,
  examples: Record<string, ExampleObject>,
): ResponseObject {
  return {
    description: docs.description,
    headers: {
      'X-Request-Id': headerRef('X-Request-Id'),
      ...(docs.retryAfter ? { 'Retry-After': headerRef('Retry-After') } : {}),
      ...(docs.challenge ? { 'WWW-Authenticate': headerRef('WWW-Authenticate') } : {}),
    },
    content: { 'application/json': { schema: { $ref: schemaRef }, examples } },
  };
}

/** Examples particular to the route: its own from operation-docs.ts, or made from its limits. */
function ownExamples(
  route: RouteSpec,
  status: number,
  routeExamples: ErrorResponseInput['routeExamples'],
): Record<string, ExampleObject> | undefined {
  switch (status) {
    case 403:
      return route.checksOrigin
        ? {
            ...routeExamples[403],
            origin: fromChain('An Origin not allowed', foreignOrigin()),
            host: fromChain('A foreign Host (local gateway)', foreignHost()),
          }
        : routeExamples[403];
    case 413:
      return { ...tooLargeExamples(route), ...routeExamples[413] };
    case 422:
      return { reused: fromChain('A key reused for another request', idempotencyKeyReused()) };
    case 500:
      // What the chain sends for a fault of a message-only route (shared/http/map-error.ts).
      return { fault: { summary: 'An unexpected fault', value: { message: badGateway().message } } };
    default:
      return routeExamples[status];
  }
}

function tooLargeExamples(route: RouteSpec): Record<string, ExampleObject> {
  if (route.maxBodyBytes === undefined) throw new Error(`route ${route.id}: 413 without maxBodyBytes`);
  return {
    body: fromChain(`Body above ${route.maxBodyBytes} bytes`, payloadTooLarge(route.maxBodyBytes)),
    gateway: fromGateway("Above the gateway's own payload limit", gatewayResponses.REQUEST_TOO_LARGE),
  };
}

function allowHeader(route: RouteSpec): HeaderObject {
  return {
    description: 'The method this path takes.',
    required: true,
    schema: { type: 'string', const: route.method },
  };
}
