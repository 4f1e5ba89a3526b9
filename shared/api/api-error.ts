import type { ErrorCode } from '#shared/schemas/error-body';

/** An error the chain turns into `{code, message}` with `status`. Handlers throw these, nothing else. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const UNAUTHENTICATED_MESSAGE = 'An Authorization header with a valid Bearer token is required.';
/**
 * The challenge every 401 carries (RFC 6750, section 3): the scheme the API takes, so that a client
 * that reads it (an MCP client among them) knows a Bearer key is what is missing. No `error`
 * attribute: the gateway answers a missing and a refused key alike, and tells no caller which.
 */
export const BEARER_CHALLENGE = { 'WWW-Authenticate': 'Bearer' } as const;
export const PERMISSION_DENIED_MESSAGE = 'The API key does not allow this operation.';
export const FOREIGN_ORIGIN_MESSAGE =
  "The request's Origin header names an origin this endpoint does not accept (DNS-rebinding protection). " +
  'Call it from a server, which sends no Origin header, or ask the operator of the API to allow your origin.';
export const FOREIGN_HOST_MESSAGE =
  "The request's Host header names a host this server does not answer for (DNS-rebinding protection). " +
  'Address the API by the host and port it listens on.';
export const BAD_GATEWAY_MESSAGE = 'A downstream request failed. If the request was a write, it may have completed.';
export const GATEWAY_TIMEOUT_MESSAGE = 'The request timed out. If the request was a write, it may have completed.';

export const badRequest = (message: string) => new ApiError(400, 'BadRequest', message);
export const unauthenticated = () => new ApiError(401, 'Unauthenticated', UNAUTHENTICATED_MESSAGE, BEARER_CHALLENGE);
export const permissionDenied = () => new ApiError(403, 'PermissionDenied', PERMISSION_DENIED_MESSAGE);
/** The MCP origin check: a browser page of another origin, or a rebound host name, reaching a route that checks it. */
export const foreignOrigin = () => new ApiError(403, 'PermissionDenied', FOREIGN_ORIGIN_MESSAGE);
export const foreignHost = () => new ApiError(403, 'PermissionDenied', FOREIGN_HOST_MESSAGE);
/** A webhook endpoint's event whose data the key may not read (shared/http/webhook-event-scopes.ts). */
export const subscriptionDenied = (event: string, scope: string) =>
  new ApiError(
    403,
    'PermissionDenied',
    `The API key does not allow subscribing to '${event}': it needs the scope '${scope}', which reads what the event carries.`,
  );
export const notFound = (message: string) => new ApiError(404, 'NotFound', message);
/** A resource that existed and is kept no more (410 Gone), with the contract's code for an absent one. */
export const gone = (message: string) => new ApiError(410, 'NotFound', message);
export const conflict = (message: string) => new ApiError(409, 'Conflict', message);
/** Safe retries: the Idempotency-Key already records another request's answer. */
export const idempotencyKeyReused = () =>
  new ApiError(
    422,
    'BadRequest',
    'The Idempotency-Key was already used for a different request (another method, path or body). ' +
      'Retry with exactly the request that first used it, or use a new key for a new request.',
  );
/** Conditional requests: If-Match / If-None-Match did not hold for the document; the contract's code for a state conflict. */
export const preconditionFailed = (docId: string) =>
  new ApiError(
    412,
    'Conflict',
    `Document '${docId}' does not meet the request's If-Match / If-None-Match: it changed, is absent or exists. Nothing was written; GET it for its current ETag and decide again.`,
  );
export const payloadTooLarge = (limit: number, what = 'The request body') =>
  new ApiError(413, 'PayloadTooLarge', `${what} is larger than ${limit} bytes.`);
export const serviceUnavailable = (retryAfterSeconds: number) =>
  new ApiError(
    503,
    'ServiceUnavailable',
    'A required service is unavailable; retry later. If the request was a write, it may have completed.',
    { 'Retry-After': String(retryAfterSeconds) },
  );
/** The reporting lists' backend failed: the same page can be asked again later. */
export const unavailable = (retryAfterSeconds: number) =>
  new ApiError(503, 'Unavailable', 'The reporting service is unavailable; retry the same request later.', {
    'Retry-After': String(retryAfterSeconds),
  });
export const gatewayTimeout = () => new ApiError(504, 'GatewayTimeout', GATEWAY_TIMEOUT_MESSAGE);
export const badGateway = () => new ApiError(502, 'BadGateway', BAD_GATEWAY_MESSAGE);
