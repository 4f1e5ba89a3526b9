import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CURSOR_MAX_AGE_MS, decodeReportCursor, encodeReportCursor, type CursorState } from '#shared/domain/reporting/report-cursor';

const SECRET = 'test-secret-of-enough-length-0123456789';
const NOW = Date.parse('2026-06-15T12:00:00Z');
const state: CursorState = { tenantId: 'acme', kind: 'assistant', window: { from: NOW - 86_400_000, to: NOW }, after: [NOW - 1000, 'row-42'], total: 1234 };
const expected = { tenantId: 'acme', kind: 'assistant' } as const;

describe('reporting cursor (D6)', () => {
  it('round-trips any state', () => {
    const states = fc.record({
      tenantId: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/),
      kind: fc.constantFrom('assistant' as const, 'voc' as const),
      window: fc.record({ from: fc.nat(), to: fc.nat() }),
      after: fc.tuple(fc.nat(), fc.string()),
      total: fc.nat(),
    });
    fc.assert(fc.property(states, (s) => {
      const decoded = decodeReportCursor(encodeReportCursor(s, SECRET, NOW), s, SECRET, NOW);
      return decoded.ok && JSON.stringify(decoded.state) === JSON.stringify(s);
    }));
  });

  it('is opaque: URL-safe, and holds no readable tenant name', () => {
    const cursor = encodeReportCursor(state, SECRET, NOW);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(cursor).not.toContain('acme');
  });

  it('refuses any change to any character as tampered or malformed', () => {
    const cursor = encodeReportCursor(state, SECRET, NOW);
    fc.assert(fc.property(fc.nat(cursor.length - 1), fc.constantFrom(...'ABCabc019_-.'.split('')), (index, replacement) => {
      fc.pre(cursor[index] !== replacement);
      const changed = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
      return !decodeReportCursor(changed, expected, SECRET, NOW).ok;
    }));
  });

  it('refuses a cursor signed with another secret', () => {
    expect(decodeReportCursor(encodeReportCursor(state, 'another-secret', NOW), expected, SECRET, NOW)).toEqual({ ok: false, reason: 'tampered' });
  });

  it("refuses another tenant's cursor and the other list's cursor", () => {
    const cursor = encodeReportCursor(state, SECRET, NOW);
    expect(decodeReportCursor(cursor, { tenantId: 'globex', kind: 'assistant' }, SECRET, NOW)).toEqual({ ok: false, reason: 'foreign' });
    expect(decodeReportCursor(cursor, { tenantId: 'acme', kind: 'voc' }, SECRET, NOW)).toEqual({ ok: false, reason: 'foreign' });
  });

  it('expires after 24 hours', () => {
    const cursor = encodeReportCursor(state, SECRET, NOW);
    expect(decodeReportCursor(cursor, expected, SECRET, NOW + CURSOR_MAX_AGE_MS).ok).toBe(true);
    expect(decodeReportCursor(cursor, expected, SECRET, NOW + CURSOR_MAX_AGE_MS + 1)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each(['', 'abc', 'a.b', `${'x'.repeat(20)}.${'y'.repeat(43)}`, '.'.repeat(50)])('refuses the non-cursor %j', (text) => {
    expect(decodeReportCursor(text, expected, SECRET, NOW).ok).toBe(false);
  });
});
