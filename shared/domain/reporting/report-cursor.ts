/**
 * The reporting cursor (D6): opaque to clients, it carries the window, the last sort key
 * [Datetime, ID], the tenant and list kind, the total fixed at the first page and its issue time,
 * signed with HMAC-SHA256. A tampered, foreign-tenant, other-list or expired cursor is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
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

interface Payload {
  v: 1;
  t: string;
  k: ReportKind;
  f: number;
  u: number;
  a: [number, string];
  n: number;
  i: number;
}

function sign(body: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}

export function encodeReportCursor(state: CursorState, secret: string, nowMs: number): string {
  const payload: Payload = { v: 1, t: state.tenantId, k: state.kind, f: state.window.from, u: state.window.to, a: state.after, n: state.total, i: nowMs };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body, secret).toString('base64url')}`;
}

export type DecodedCursor = { ok: true; state: CursorState } | { ok: false; reason: 'malformed' | 'tampered' | 'foreign' | 'expired' };

function isPayload(value: unknown): value is Payload {
  const p = value as Partial<Payload> | null;
  return (
    typeof p === 'object' && p !== null && p.v === 1 && typeof p.t === 'string' && (p.k === 'assistant' || p.k === 'voc') &&
    Number.isSafeInteger(p.f) && Number.isSafeInteger(p.u) && Number.isSafeInteger(p.n) && Number.isSafeInteger(p.i) &&
    Array.isArray(p.a) && p.a.length === 2 && Number.isSafeInteger(p.a[0]) && typeof p.a[1] === 'string'
  );
}

export function decodeReportCursor(cursor: string, expected: { tenantId: string; kind: ReportKind }, secret: string, nowMs: number): DecodedCursor {
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(cursor);
  if (!match) return { ok: false, reason: 'malformed' };
  const [, body = '', signature = ''] = match;
  const given = Buffer.from(signature, 'base64url');
  const wanted = sign(body, secret);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return { ok: false, reason: 'tampered' };
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!isPayload(payload)) return { ok: false, reason: 'malformed' };
  if (payload.t !== expected.tenantId || payload.k !== expected.kind) return { ok: false, reason: 'foreign' };
  if (nowMs - payload.i > CURSOR_MAX_AGE_MS || payload.i - nowMs > 60_000) return { ok: false, reason: 'expired' };
  return { ok: true, state: { tenantId: payload.t, kind: payload.k, window: { from: payload.f, to: payload.u }, after: payload.a, total: payload.n } };
}
