/**
 * The check every kept JSON body passes (shared/domain/json/describe-unfaithful-json.ts): what it refuses, named
 * by member path, and that a hostile body costs what its size says: 1 MiB of
 * nested arrays once took 0.9 GB, so here it must pass in a process whose heap is capped far below.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeUnfaithfulJson, MAX_JSON_DEPTH } from '#shared/domain/json/describe-unfaithful-json';

const nested = (levels: number, inner: string) =>
  JSON.parse('['.repeat(levels) + inner + ']'.repeat(levels)) as unknown;

describe('describeUnfaithfulJson', () => {
  it('keeps ordinary bodies, empty containers and scalars', () => {
    for (const body of [{}, [], 0, 'text', null, true, { a: [1, 'é', { b: null }], '😀': 2 ** 53 - 1 }])
      expect(describeUnfaithfulJson(body)).toBeUndefined();
  });

  it('names the member that holds an unfaithful value', () => {
    expect(describeUnfaithfulJson({ a: [1, 2, { b: '\ud800' }] })).toMatch(
      /^'a\[2\]\.b' holds text that is not valid Unicode/,
    );
    expect(describeUnfaithfulJson({ x: { y: [0, 0, Infinity] } })).toMatch(/^'x\.y\[2\]' holds a number too large/);
    expect(describeUnfaithfulJson([[[2 ** 60]]])).toMatch(/^'\[0\]\[0\]\[0\]' holds an integer beyond/);
    expect(describeUnfaithfulJson({ ok: 1, 'bad\udc00': 1 })).toMatch(
      /^'bad\udc00' holds text that is not valid Unicode/,
    );
    expect(describeUnfaithfulJson('\udfff')).toMatch(/^'the body' holds text/);
  });

  it(`allows members ${MAX_JSON_DEPTH} levels down and refuses one level more`, () => {
    expect(describeUnfaithfulJson(nested(MAX_JSON_DEPTH, '1'))).toBeUndefined();
    expect(describeUnfaithfulJson(nested(MAX_JSON_DEPTH + 1, ''))).toBeUndefined();
    expect(describeUnfaithfulJson(nested(MAX_JSON_DEPTH + 1, '1'))).toBe(
      `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
    );
    const objects = JSON.parse(`${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`) as unknown;
    expect(describeUnfaithfulJson(objects)).toMatch(/deeper than 100 levels/);
  });

  it('finds a problem after a deep sibling has been walked and left', () => {
    expect(describeUnfaithfulJson([nested(50, '0'), { after: [1, 2 ** 70] }])).toMatch(
      /^'\[1\]\.after\[1\]' holds an integer beyond/,
    );
    expect(describeUnfaithfulJson({ deep: nested(99, '0'), next: nested(2, '1') })).toBeUndefined();
  });

  it('checks 1 MiB of 100 nested arrays holding 520 000 zeros in a process with a 40 MB heap', () => {
    // The attack of the review: the old walk copied the member path for each element (0.9 GB).
    const script = `
      const { describeUnfaithfulJson } = await import(${JSON.stringify(fileURLToPath(new URL('../../../../../shared/domain/json/describe-unfaithful-json.ts', import.meta.url)))});
      const text = '['.repeat(99) + '[' + Array(520000).fill('0').join(',') + ']' + ']'.repeat(99);
      const verdict = describeUnfaithfulJson(JSON.parse(text));
      process.stdout.write(JSON.stringify({ mib: text.length / 1048576, verdict: verdict ?? null }));
    `;
    const run = spawnSync(
      process.execPath,
      ['--max-old-space-size=40', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).not.toMatch(/heap out of memory/);
    expect(run.status).toBe(0);
    const { mib, verdict } = JSON.parse(run.stdout) as { mib: number; verdict: string | null };
    expect(mib).toBeGreaterThan(0.98);
    expect(verdict).toBeNull();
  });
});
