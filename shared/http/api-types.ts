import type { AbortSignal as OneSlotAbortSignal } from '@smithy/types';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Caller } from '#shared/auth/authorizer-context';
import type { IdempotencyClaim } from '#shared/domain/idempotency/recorded-response';

/** A route's validated input, by part (shared/schemas/route-validators.generated.ts, `RouteInputs`). */
export interface RouteInput {
  path: object;
  query: object;
  body: unknown;
}

/** What a handler sees: the authorised tenant and validated input, nothing of HTTP. */
export interface ApiRequest<
  Input extends RouteInput = { path: Record<string, string>; query: Record<string, string | undefined>; body: unknown },
> {
  tenantId: string;
  caller: Caller;
  path: Input['path'];
  query: Input['query'];
  body: Input['body'];
  requestId: string;
  /** Aborted when the function is about to pass its deadline. */
  signal: OneSlotAbortSignal;
  /** The request's Idempotency-Key and fingerprint, on the routes that accept one. */
  idempotency?: IdempotencyClaim;
  /** The HTTP layer, for the few handlers that speak a protocol of their own (MCP). */
  http: {
    method: string;
    headers: Record<string, string | undefined>;
    /** Every line of a repeated header (`headers` holds the last one only, as API Gateway passes them). */
    multiValueHeaders: Record<string, string[] | undefined>;
    rawBody: Buffer;
    /** Absolute URL of this resource as the caller addressed it, without the query. */
    selfUrl: string;
  };
}

export interface ApiResult {
  status: number;
  /** Serialised as JSON. */
  body?: unknown;
  /** Sent as it is instead of `body`: JSON already serialised, or a protocol's own encoding. */
  bodyText?: string;
  headers?: Record<string, string>;
}

/** The body text a result goes out with: what the chain sends, and what a keyed write records. */
export function resultBodyText(result: ApiResult): string {
  return result.bodyText ?? (result.body === undefined ? '' : JSON.stringify(result.body));
}

/** The proxy event as the chain enriches it, step by step. */
export interface ChainEvent extends APIGatewayProxyEvent {
  cxm?: {
    tenantId: string;
    caller: Caller;
    /** The request's bytes, decoded from the event once (parseJsonBody). */
    rawBody?: Buffer;
    body?: unknown;
    idempotency?: IdempotencyClaim;
  };
}
