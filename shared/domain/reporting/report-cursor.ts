/**
 * The reporting cursor: opaque to clients, it carries the window, the last sort key
 * [Datetime, ID], the tenant and list kind, the total fixed at the first page and its issue time,
 * signed with HMAC-SHA256. A tampered, foreign-tenant, other-list or expired cursor is refused.
 *
 * The signing key rotates without breaking open cursors: each cursor names the key that signed it
 * (an id derived from the key, so the secret stays the only thing to configure), and a list accepts
 * the current key and the one before it. A cursor of a key older than that is 'retired'.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from '../hmac-sha256.ts';
import type { Window } from './resolve-window.ts';

export const CURSOR_MAX_AGE_MS = 24 * 3_600_000;

export const REPORT_KINDS = ['assistant', 'voc'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export interface CursorState {
  tenantId: string;
  kind: ReportKind;
  window: Window;
  /** Sort key of the last row served: [Datetime in epoch ms, ID]. */
  after: [number, string];
  total: number;
}

/** A signing key and its id: current first, then the previous one while it is kept. */
export interface CursorKey {
  id: string;
  secret: string;
}

/** Public: the id says which key signed, never anything about the key beyond that. */
export function cursorKey(secret: string): CursorKey {
  return { id: createHash('sha256').update(`cxm cursor key\n${secret}`).digest('base64url').slice(0, 8), secret };
}

interface Payload {
  v: 1;
  /** The signing key's id; cursors issued before key ids have none and are tried with each key. */
  s?: string;
  t: string;
  k: ReportKind;
  f: number;
  u: number;
  a: [number, string];
  n: number;
  i: number;
}

function sign(body: string, secret: string): Buffer {
  return hmacSha256(secret).update(body).digest();
}

export function encodeReportCursor(state: CursorState, key: CursorKey, nowMs: number): string {
  const payload: Payload = {
    v: 1,
    s: key.id,
    t: state.tenantId,
    k: state.kind,
    f: state.window.from,
    u: state.window.to,
    a: state.after,
    n: state.total,
    i: nowMs,
  };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body, key.secret).toString('base64url')}`;
}

export type DecodedCursor =
  | { ok: true; state: CursorState }
  | { ok: false; reason: 'malformed' | 'tampered' | 'retired' | 'foreign' | 'expired' };

function isPayload(value: unknown): value is Payload {
  const p = value as Partial<Payload> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    p.v === 1 &&
    (p.s === undefined || typeof p.s === 'string') &&
    typeof p.t === 'string' &&
    (p.k === 'assistant' || p.k === 'voc') &&
    Number.isSafeInteger(p.f) &&
    Number.isSafeInteger(p.u) &&
    Number.isSafeInteger(p.n) &&
    Number.isSafeInteger(p.i) &&
    Array.isArray(p.a) &&
    p.a.length === 2 &&
    Number.isSafeInteger(p.a[0]) &&
    typeof p.a[1] === 'string'
  );
}

function signedBy(body: string, signature: Buffer, key: CursorKey): boolean {
  const wanted = sign(body, key.secret);
  return signature.length === wanted.length && timingSafeEqual(signature, wanted);
}

/** The payload as sent, parsed once: trusted only after its signature has been checked. */
function parseBody(body: string): { s?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as { s?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/** `keys`: the keys accepted, the current one first. */
export function decodeReportCursor(
  cursor: string,
  expected: { tenantId: string; kind: ReportKind },
  keys: readonly CursorKey[],
  nowMs: number,
): DecodedCursor {
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(cursor);
  if (!match) return { ok: false, reason: 'malformed' };
  const [, body = '', signature = ''] = match;
  const payload = parseBody(body);
  if (payload === undefined) return { ok: false, reason: 'malformed' };
  // Read before the signature only to pick the key to check it with.
  const candidates = typeof payload.s === 'string' ? keys.filter((key) => key.id === payload.s) : keys;
  if (candidates.length === 0) return { ok: false, reason: 'retired' };
  const given = Buffer.from(signature, 'base64url');
  if (!candidates.some((key) => signedBy(body, given, key))) return { ok: false, reason: 'tampered' };
  if (!isPayload(payload)) return { ok: false, reason: 'malformed' };
  if (payload.t !== expected.tenantId || payload.k !== expected.kind) return { ok: false, reason: 'foreign' };
  if (nowMs - payload.i > CURSOR_MAX_AGE_MS || payload.i - nowMs > 60_000) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    state: {
      tenantId: payload.t,
      kind: payload.k,
      window: { from: payload.f, to: payload.u },
      after: payload.a,
      total: payload.n,
    },
  };
}
