import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Caller } from '#shared/auth/authorizer-context';

/** What a handler sees: the authorised tenant and validated input, nothing of HTTP. */
export interface ApiRequest<Body = unknown> {
  tenantId: string;
  caller: Caller;
  path: Record<string, string>;
  query: Record<string, string>;
  body: Body;
  requestId: string;
  /** Aborted when the function is about to pass its deadline. */
  signal: AbortSignal;
}

export interface ApiResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The proxy event as the chain enriches it, step by step. */
export interface ChainEvent extends APIGatewayProxyEvent {
  cxm?: {
    tenantId: string;
    caller: Caller;
    body?: unknown;
  };
}
