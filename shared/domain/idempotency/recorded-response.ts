/**
 * The idempotency record: a committed write's response, kept under its key so the same
 * request can be answered again byte for byte, and the fingerprint that says what "the same
 * request" is.
 */

/** What a replay sends: the first answer's status, body text and the headers that matter. */
export interface RecordedResponse {
  status: number;
  bodyText: string;
  /** `Location`, `ETag`, `Link` when the first answer had them. */
  headers: Record<string, string>;
}

/** A caller's claim on a key: the key and the fingerprint of the request that carries it. */
export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
}

export interface IdempotencyRecord {
  fingerprint: string;
  response: RecordedResponse;
  createdAt: string;
  /** After this instant (epoch ms) the key is free again, whether or not TTL has deleted it yet. */
  expiresAtMs: number;
}

/** The response headers a record keeps (the rest are per-request: X-Request-Id, Date...). */
export const RECORDED_HEADERS = ['Location', 'Content-Location', 'ETag', 'Link'] as const;

export function recordedHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of RECORDED_HEADERS) {
    const value = headers?.[name];
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}
