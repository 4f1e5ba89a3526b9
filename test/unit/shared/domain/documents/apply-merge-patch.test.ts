import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '#shared/domain/documents/apply-merge-patch';
import type { JsonValue } from '#shared/domain/documents/json-value';
import { decodeListCursor, encodeListCursor } from '#shared/domain/documents/list-cursor';

describe('JSON Merge Patch (RFC 7396)', () => {
  // The examples of RFC 7396, appendix A.
  it.each<[JsonValue, JsonValue, JsonValue]>([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('changes neither input', () => {
    const target = { a: { b: 1 }, list: [1] };
    const patch = { a: { c: 2 }, list: [2] };
    applyMergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 }, list: [1] });
    expect(patch).toEqual({ a: { c: 2 }, list: [2] });
  });

  it('treats __proto__ and constructor as plain members, never as the prototype', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"x":1}}') as JsonValue;
    const merged = applyMergePatch({ keep: 1 }, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(merged)).toBe('{"keep":1,"__proto__":{"polluted":true},"constructor":{"x":1}}');
    const again = applyMergePatch(merged as JsonValue, JSON.parse('{"__proto__":{"more":2}}') as JsonValue);
    expect(JSON.stringify(again)).toBe('{"keep":1,"__proto__":{"polluted":true,"more":2},"constructor":{"x":1}}');
  });

  it('keeps member order: existing members in place, new ones appended', () => {
    expect(JSON.stringify(applyMergePatch({ z: 1, a: 2 }, { m: 3, z: 4 }))).toBe('{"z":4,"a":2,"m":3}');
  });
});

describe('list cursor', () => {
  it('round-trips any document id', () => {
    for (const id of ['a', 'doc-1', 'ümlaut 😀', 'x'.repeat(512)])
      expect(decodeListCursor(encodeListCursor(id))).toBe(id);
  });

  it.each([
    '',
    'not a cursor!',
    'e30',
    Buffer.from('{"v":2,"after":"a"}').toString('base64url'),
    Buffer.from('{"v":1,"after":""}').toString('base64url'),
    Buffer.from('[1]').toString('base64url'),
  ])('refuses %j', (cursor) => {
    expect(decodeListCursor(cursor)).toBeUndefined();
  });
});
