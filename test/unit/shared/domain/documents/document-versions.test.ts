/** Where a version number stands in a document's history, and which version a write pushes out. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_VERSION_RETENTION,
  versionPrunedBy,
  versionStanding,
} from '#shared/domain/documents/document-versions';

const keepingThree = { ...DEFAULT_VERSION_RETENTION, keep: 3 };

describe('versionPrunedBy', () => {
  it('pushes out the version `keep` below the one written, none while fewer were written', () => {
    expect([1, 2, 3, 4, 10].map((written) => versionPrunedBy(written, keepingThree))).toEqual([
      undefined,
      undefined,
      undefined,
      1,
      7,
    ]);
  });
});

describe('versionStanding', () => {
  it('the current one, those kept below it, those gone below the retention, and none past it or without a document', () => {
    expect([5, 4, 3, 2, 1, 6].map((n) => versionStanding(n, 5, keepingThree))).toEqual([
      'current',
      'kept',
      'kept',
      'gone',
      'gone',
      'not-yet',
    ]);
    expect(versionStanding(1, undefined, keepingThree)).toBe('not-yet');
  });
});
