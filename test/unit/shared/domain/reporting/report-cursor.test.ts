import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CURSOR_MAX_AGE_MS,
  type CursorState,
  cursorKey,
  decodeReportCursor,
  encodeReportCursor,
} from '#shared/domain/reporting/report-cursor';

const SECRET = 'test-secret-of-enough-length-0123456789';
const KEY = cursorKey(SECRET);
const KEYS = [KEY];
const NOW = Date.parse('2026-06-15T12:00:00Z');
const state: CursorState = {
  tenantId: 'acme',
  kind: 'assistant',
  window: { from: NOW - 86_400_000, to: NOW },
  after: [NOW - 1000, 'row-42'],
  total: 1234,
};
const expected = { tenantId: 'acme', kind: 'assistant' } as const;

describe('reporting cursor', () => {
  it('round-trips any state', () => {
    const states = fc.record({
      tenantId: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/),
      kind: fc.constantFrom('assistant' as const, 'voc' as const),
      window: fc.record({ from: fc.nat(), to: fc.nat() }),
      after: fc.tuple(fc.nat(), fc.string()),
      total: fc.nat(),
    });
    fc.assert(
      fc.property(states, (s) => {
        const decoded = decodeReportCursor(encodeReportCursor(s, KEY, NOW), s, KEYS, NOW);
        return decoded.ok && JSON.stringify(decoded.state) === JSON.stringify(s);
      }),
    );
  });

  it('is opaque: URL-safe, and holds no readable tenant name', () => {
    const cursor = encodeReportCursor(state, KEY, NOW);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(cursor).not.toContain('acme');
  });

  it('refuses any change to any character as tampered or malformed', () => {
    const cursor = encodeReportCursor(state, KEY, NOW);
    fc.assert(
      fc.property(fc.nat(cursor.length - 1), fc.constantFrom(...'ABCabc019_-.'.split('')), (index, replacement) => {
        fc.pre(cursor[index] !== replacement);
        const changed = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
        return !decodeReportCursor(changed, expected, KEYS, NOW).ok;
      }),
    );
  });

  it('refuses a cursor signed with a key it does not hold, and one whose key id was changed', () => {
    expect(
      decodeReportCursor(encodeReportCursor(state, cursorKey('another-secret'), NOW), expected, KEYS, NOW),
    ).toEqual({ ok: false, reason: 'retired' });
    const forged = encodeReportCursor(state, { id: KEY.id, secret: 'another-secret' }, NOW);
    expect(decodeReportCursor(forged, expected, KEYS, NOW)).toEqual({ ok: false, reason: 'tampered' });
  });

  describe('rotation of the signing key', () => {
    const previous = cursorKey('the-key-before-the-current-one-0123456789');
    const current = cursorKey('the-key-now-current-after-rotation-0123456789');

    it('names its key, and the id tells nothing of the secret', () => {
      expect(current.id).toMatch(/^[A-Za-z0-9_-]{8}$/);
      expect(current.id).not.toBe(previous.id);
      expect(cursorKey(current.secret)).toEqual(current);
      const payload = JSON.parse(
        Buffer.from(encodeReportCursor(state, current, NOW).split('.')[0]!, 'base64url').toString('utf8'),
      ) as { s: string };
      expect(payload.s).toBe(current.id);
    });

    it('accepts cursors of the current and of the previous key, and refuses older ones as retired', () => {
      const keys = [current, previous];
      expect(decodeReportCursor(encodeReportCursor(state, current, NOW), expected, keys, NOW).ok).toBe(true);
      expect(decodeReportCursor(encodeReportCursor(state, previous, NOW), expected, keys, NOW).ok).toBe(true);
      expect(decodeReportCursor(encodeReportCursor(state, previous, NOW), expected, [current], NOW)).toEqual({
        ok: false,
        reason: 'retired',
      });
    });

    it('accepts a cursor issued before key ids with either key', () => {
      // The format of cursors issued before this change: no key id in the payload.
      const legacy = (secret: string) => {
        const body = Buffer.from(
          JSON.stringify({
            v: 1,
            t: 'acme',
            k: 'assistant',
            f: state.window.from,
            u: state.window.to,
            a: state.after,
            n: state.total,
            i: NOW,
          }),
        ).toString('base64url');
        return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
      };
      expect(decodeReportCursor(legacy(previous.secret), expected, [current, previous], NOW)).toEqual({
        ok: true,
        state,
      });
      expect(
        decodeReportCursor(legacy('a-key-no-longer-held-0123456789abcdef'), expected, [current, previous], NOW),
      ).toEqual({ ok: false, reason: 'tampered' });
    });
  });

  it("refuses another tenant's cursor and the other list's cursor", () => {
    const cursor = encodeReportCursor(state, KEY, NOW);
    expect(decodeReportCursor(cursor, { tenantId: 'globex', kind: 'assistant' }, KEYS, NOW)).toEqual({
      ok: false,
      reason: 'foreign',
    });
    expect(decodeReportCursor(cursor, { tenantId: 'acme', kind: 'voc' }, KEYS, NOW)).toEqual({
      ok: false,
      reason: 'foreign',
    });
  });

  it('expires after 24 hours', () => {
    const cursor = encodeReportCursor(state, KEY, NOW);
    expect(decodeReportCursor(cursor, expected, KEYS, NOW + CURSOR_MAX_AGE_MS).ok).toBe(true);
    expect(decodeReportCursor(cursor, expected, KEYS, NOW + CURSOR_MAX_AGE_MS + 1)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it.each(['', 'abc', 'a.b', `${'x'.repeat(20)}.${'y'.repeat(43)}`, '.'.repeat(50)])(
    'refuses the non-cursor %j',
    (text) => {
      expect(decodeReportCursor(text, expected, KEYS, NOW).ok).toBe(false);
    },
  );
});
