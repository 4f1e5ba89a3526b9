import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RANGES, type ReportQuery, resolveWindow } from '#shared/domain/reporting/resolve-window';
import { parseInstant, parseIsoDateTime } from '#shared/domain/time/parse-instant';

const NOW = Date.parse('2026-06-15T12:00:00Z');
// A day inside 0000-9999 on both sides, so every zone's local time has a four-digit year.
const instants = fc.integer({ min: Date.parse('1970-01-02T00:00:00Z'), max: Date.parse('9999-12-30T00:00:00Z') });
const offsets = fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 });

/** ISO 8601 of `ms` as seen at a zone `offset` minutes from UTC. */
function isoAt(ms: number, offset: number, colon = true): string {
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
  if (offset === 0) return `${local}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}${colon ? ':' : ''}${mm}`;
}

describe('parseInstant', () => {
  it('reads any ISO 8601 date-time with any zone as the same instant', () => {
    fc.assert(
      fc.property(
        instants,
        offsets,
        fc.boolean(),
        (ms, offset, colon) => parseInstant(isoAt(ms, offset, colon)) === ms,
      ),
    );
  });

  it('reads epoch milliseconds written in digits', () => {
    fc.assert(fc.property(instants, (ms) => parseInstant(String(ms)) === ms));
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const result = parseInstant(text);
        return result === undefined || Number.isFinite(result);
      }),
    );
  });

  it.each([
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:00',
    '2026-01-01',
    '2026-01-01T00:00:00+24:00',
    '-1',
    '1.5',
    '1e12',
    ' 1767225600000',
    'yesterday',
    '',
  ])('refuses %j', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });

  it('reads the ISO form alone through parseIsoDateTime: no epoch digits, no day that does not exist', () => {
    expect(parseIsoDateTime('2026-03-02T00:00:00Z')).toBe(Date.parse('2026-03-02T00:00:00Z'));
    for (const text of ['1767225600000', '2026-02-30T00:00:00Z', '2026-02-29T00:00:00+01:00', '2026-02-28'])
      expect(parseIsoDateTime(text)).toBeUndefined();
  });

  it('accepts a leap day and fractions to the nanosecond (kept to the millisecond)', () => {
    expect(parseInstant('2024-02-29T10:00:00.123456789+02:00')).toBe(Date.parse('2024-02-29T08:00:00.123Z'));
    // Years below 100 as written (Date.UTC would read 0000 as 1900, which has no 29 February).
    expect(parseIsoDateTime('0000-02-29T00:00:00Z')).toBe(Date.parse('0000-02-29T00:00:00Z'));
    expect(parseIsoDateTime('0100-02-29T00:00:00Z')).toBeUndefined();
  });
});

describe('resolveWindow', () => {
  const ok = (query: ReportQuery) => {
    const resolved = resolveWindow(query, NOW);
    if (!resolved.ok) throw new Error(resolved.message);
    return resolved;
  };
  const refused = (query: ReportQuery) => {
    const resolved = resolveWindow(query, NOW);
    if (resolved.ok) throw new Error(`accepted ${JSON.stringify(query)}`);
    return resolved.message;
  };

  it('defaults to the last day up to now, 1000 rows', () => {
    expect(ok({})).toEqual({
      ok: true,
      limit: 1000,
      window: { from: NOW - RANGES.last_day, to: NOW },
      cursor: undefined,
    });
  });

  it.each(Object.entries(RANGES))('range=%s ends at to (default now)', (range, span) => {
    expect(ok({ range }).window).toEqual({ from: NOW - span, to: NOW });
    expect(ok({ range, to: '1767225600000' }).window).toEqual({ from: 1767225600000 - span, to: 1767225600000 });
  });

  it('from alone runs to now; from and to give exactly [from, to)', () => {
    fc.assert(
      fc.property(instants, instants, offsets, (a, b, offset) => {
        fc.pre(a !== b);
        const [from, to] = a < b ? [a, b] : [b, a];
        const resolved = resolveWindow({ from: isoAt(from, offset), to: String(to) }, NOW);
        return resolved.ok && resolved.window!.from === from && resolved.window!.to === to;
      }),
    );
    expect(ok({ from: '2026-06-15T00:00:00Z' }).window).toEqual({ from: Date.parse('2026-06-15T00:00:00Z'), to: NOW });
  });

  it('refuses from at or after to', () => {
    fc.assert(
      fc.property(
        instants,
        fc.nat(1_000_000),
        (to, back) => !resolveWindow({ from: String(to + back), to: String(to) }, NOW).ok,
      ),
    );
    expect(refused({ from: '2026-06-16T00:00:00Z' })).toMatch(/'from' must be before 'to'/);
  });

  it.each<[ReportQuery, RegExp]>([
    [{ limit: '0' }, /'limit'/],
    [{ limit: '5001' }, /'limit'/],
    [{ limit: '10.5' }, /'limit'/],
    [{ limit: '1e3' }, /'limit'/],
    [{ limit: '-1' }, /'limit'/],
    [{ limit: '' }, /'limit'/],
    [{ range: 'last_year' }, /'range' must be one of last_day, last_week, last_month/],
    [{ range: 'last_day', from: '1' }, /'range' and 'from'/],
    [{ from: 'yesterday' }, /'from' must be an ISO 8601/],
    [{ to: '2026-06-15' }, /'to' must be an ISO 8601/],
    [{ cursor: 'c', range: 'last_day' }, /'cursor' cannot be combined with 'range'/],
    [{ cursor: 'c', from: '1', to: '2' }, /'cursor' cannot be combined with 'from', 'to'/],
  ])('refuses %j', (query, message) => {
    expect(refused(query)).toMatch(message);
  });

  it('accepts limits 1 to 5000 written in digits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), (limit) => {
        const resolved = resolveWindow({ limit: String(limit) }, NOW);
        return resolved.ok && resolved.limit === limit;
      }),
    );
  });

  it('passes a cursor on without a window of its own', () => {
    expect(ok({ cursor: 'abc', limit: '10' })).toEqual({ ok: true, limit: 10, window: undefined, cursor: 'abc' });
  });

  it('never throws on arbitrary query values', () => {
    const value = fc.option(fc.string(), { nil: undefined });
    fc.assert(
      fc.property(value, value, value, value, value, (limit, cursor, range, from, to) => {
        const resolved = resolveWindow({ limit, cursor, range, from, to }, NOW);
        return resolved.ok
          ? resolved.limit >= 1 && (resolved.window === undefined || resolved.window.from < resolved.window.to)
          : resolved.message.length > 0;
      }),
    );
  });
});
