/**
 * Entity tags and the RFC 9110 precondition rules in code: the list syntax, strong versus
 * weak comparison, and If-Match before If-None-Match. The same rules as DynamoDB conditions are
 * held to these by test/integration/document-preconditions.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  formatEntityTag,
  newEntityTag,
  parseTagCondition,
  preconditionsHold,
} from '#shared/domain/documents/entity-tags';

describe('parseTagCondition', () => {
  it.each([
    ['*', '*'],
    [' * ', '*'],
    ['"abc"', [{ opaque: 'abc', weak: false }]],
    ['W/"abc"', [{ opaque: 'abc', weak: true }]],
    [
      '"a", W/"b" ,"c"',
      [
        { opaque: 'a', weak: false },
        { opaque: 'b', weak: true },
        { opaque: 'c', weak: false },
      ],
    ],
    [
      '"a,b", "c"',
      [
        { opaque: 'a,b', weak: false },
        { opaque: 'c', weak: false },
      ],
    ],
    [
      '"a",,"b",',
      [
        { opaque: 'a', weak: false },
        { opaque: 'b', weak: false },
      ],
    ],
    ['""', [{ opaque: '', weak: false }]],
    ['', []],
    [' , ,', []],
  ])('%j is %j', (value, expected) => {
    expect(parseTagCondition(value)).toEqual(expected);
  });

  it.each(['abc', '"abc', 'abc"', 'w/"abc"', '"a" "b"', '"a"x', '*, "a"', '"a b"', '"a\u0001"', '*,*'])(
    '%j is not a condition',
    (value) => {
      expect(parseTagCondition(value)).toBeUndefined();
    },
  );
});

describe('preconditionsHold', () => {
  const tags = (...opaque: string[]) => opaque.map((tag) => ({ opaque: tag, weak: false }));
  const weak = (opaque: string) => [{ opaque, weak: true }];

  it('without preconditions, anything goes', () => {
    expect(preconditionsHold(undefined, {})).toBe(true);
    expect(preconditionsHold('x', {})).toBe(true);
  });

  it('If-Match holds only for a present document with one of the tags, compared strongly', () => {
    expect(preconditionsHold('x', { ifMatch: tags('y', 'x') })).toBe(true);
    expect(preconditionsHold('x', { ifMatch: tags('y') })).toBe(false);
    expect(preconditionsHold('x', { ifMatch: weak('x') })).toBe(false);
    expect(preconditionsHold(undefined, { ifMatch: tags('x') })).toBe(false);
    expect(preconditionsHold('x', { ifMatch: '*' })).toBe(true);
    expect(preconditionsHold(undefined, { ifMatch: '*' })).toBe(false);
  });

  it('If-None-Match fails on a present document with one of the tags, compared weakly, or any document for *', () => {
    expect(preconditionsHold('x', { ifNoneMatch: tags('x') })).toBe(false);
    expect(preconditionsHold('x', { ifNoneMatch: weak('x') })).toBe(false);
    expect(preconditionsHold('x', { ifNoneMatch: tags('y') })).toBe(true);
    expect(preconditionsHold(undefined, { ifNoneMatch: tags('x') })).toBe(true);
    expect(preconditionsHold('x', { ifNoneMatch: '*' })).toBe(false);
    expect(preconditionsHold(undefined, { ifNoneMatch: '*' })).toBe(true);
  });

  it('both must hold', () => {
    expect(preconditionsHold('x', { ifMatch: tags('x'), ifNoneMatch: tags('y') })).toBe(true);
    expect(preconditionsHold('x', { ifMatch: tags('x'), ifNoneMatch: '*' })).toBe(false);
  });
});

describe('If-None-Match on a GET (304 when it fails)', () => {
  it('fails on a weak match, or *', () => {
    expect(preconditionsHold('x', { ifNoneMatch: [{ opaque: 'x', weak: true }] })).toBe(false);
    expect(preconditionsHold('x', { ifNoneMatch: '*' })).toBe(false);
    expect(preconditionsHold('x', { ifNoneMatch: [{ opaque: 'y', weak: false }] })).toBe(true);
    expect(preconditionsHold('x', { ifNoneMatch: undefined })).toBe(true);
  });
});

describe('newEntityTag', () => {
  it('is fresh every time and formats as a strong tag that parses back', () => {
    const drawn = new Set(Array.from({ length: 1000 }, newEntityTag));
    expect(drawn.size).toBe(1000);
    const [tag] = drawn;
    expect(formatEntityTag(tag!)).toMatch(/^"[A-Za-z0-9_-]{16}"$/);
    expect(parseTagCondition(formatEntityTag(tag!))).toEqual([{ opaque: tag, weak: false }]);
  });
});
