import { describe, expect, it } from 'vitest';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { resolveWindow } from '#shared/domain/reporting/resolve-window';
import { parseInstant } from '#shared/domain/time/parse-instant';

describe('instants at the edges', () => {
  it('reads years 0-99 as written, not as 19xx', () => {
    expect(new Date(parseInstant('0099-12-31T00:00:00Z')!).getUTCFullYear()).toBe(99);
    expect(new Date(parseInstant('0026-01-01T00:00:00Z')!).getUTCFullYear()).toBe(26);
  });

  it('refuses windows before 1970 with a 400 message, and starts a long range at 1970', () => {
    const now = Date.parse('2026-06-15T12:00:00Z');
    for (const query of [
      { from: '1969-01-01T00:00Z', to: '1969-06-01T00:00Z' },
      { to: '1969-06-01T00:00:00Z' },
      { from: '0099-12-31T00:00:00Z' },
    ]) {
      const resolved = resolveWindow(query, now);
      expect(resolved.ok).toBe(false);
      expect(resolved.ok ? '' : resolved.message).toMatch(/at or after 1970/);
    }
    expect(resolveWindow({ range: 'last_month', to: '86400000' }, now)).toMatchObject({
      ok: true,
      window: { from: 0, to: 86_400_000 },
    });
  });
});

describe('shapeRow', () => {
  it('fills every field, sets the tenant, derives the UTC forms from the instants', () => {
    const { row, datetimeMs } = shapeRow('assistant', 'acme', {
      ID: 'a1',
      Datetime: 1767225600000,
      EndDatetime: 1767225660000,
      TenantID: 'other',
      DatetimeUTC: 'garbage',
    });
    expect(datetimeMs).toBe(1767225600000);
    expect(row).toMatchObject({
      TenantID: 'acme',
      DatetimeUTC: '2026-01-01T00:00:00.000Z',
      EndDatetimeUTC: '2026-01-01T00:01:00.000Z',
      CSat: null,
      'Handoff Reason': null,
    });
    expect(Object.keys(row)).toHaveLength(31);
    const voc = shapeRow('voc', 'acme', { ID: 'v1', Datetime: '2026-01-01T10:00:00+01:00' });
    expect(voc.row).toMatchObject({
      Datetime: '2026-01-01T10:00:00+01:00',
      DatetimeUTC: '2026-01-01T09:00:00.000Z',
      Problems: null,
    });
    expect(Object.keys(voc.row)).toHaveLength(30);
  });

  it.each<[string, 'assistant' | 'voc', Record<string, unknown>, RegExp]>([
    ['a text CSat', 'assistant', { ID: 'a', Datetime: 1, CSat: 'five' }, /CSat must be a number/],
    ['a text Escalated', 'assistant', { ID: 'a', Datetime: 1, Escalated: 'yes' }, /Escalated must be a boolean/],
    ['a numeric name', 'assistant', { ID: 'a', Datetime: 1, BotName: 7 }, /BotName must be a string/],
    [
      'Problems of numbers',
      'voc',
      { ID: 'v', Datetime: '2026-01-01T00:00:00Z', Problems: [1] },
      /Problems must be an array of objects/,
    ],
    ['a negative Datetime', 'assistant', { ID: 'a', Datetime: -5 }, /needs a Datetime/],
    ['a 16-digit Datetime', 'assistant', { ID: 'a', Datetime: 9007199254740991 }, /needs a Datetime/],
    [
      'a VOC Datetime without zone',
      'voc',
      { ID: 'v', Datetime: '2026-01-01T00:00:00' },
      /needs a Datetime in ISO 8601/,
    ],
    [
      'an unknown field',
      'voc',
      { ID: 'v', Datetime: '2026-01-01T00:00:00Z', Transcript: 'x' },
      /do not have: Transcript/,
    ],
    ['no ID', 'assistant', { Datetime: 1 }, /non-empty string ID/],
  ])('refuses %s', (_name, kind, input, message) => {
    expect(() => shapeRow(kind, 'acme', input)).toThrow(message);
  });
});
