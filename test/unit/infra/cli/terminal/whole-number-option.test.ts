import { describe, expect, it } from 'vitest';
import { CliError } from '#infra/cli/terminal/cli-error';
import { wholeNumberOption } from '#infra/cli/terminal/whole-number-option';
import { parseWholeNumber } from '#shared/settings/parse-whole-number';
import { wholeNumberSetting } from '#shared/settings/whole-number-setting';

describe("the CLI's whole-number options (seed counts, smoke timeout, sample seconds, bench runs)", () => {
  it('reads digits within the range', () => {
    expect(parseWholeNumber('0', 0, 10)).toBe(0);
    expect(parseWholeNumber('010', 0, 10)).toBe(10);
    expect(parseWholeNumber('4294967295', 0, 4_294_967_295)).toBe(4_294_967_295);
  });

  it.each(['', ' 5', '5 ', '-1', '+1', '1.5', '1.0', '1e1', '0x10', 'many', '11', '99999999999999999'])(
    'refuses %j',
    (value) => {
      expect(parseWholeNumber(value, 0, 10)).toBeUndefined();
    },
  );

  it('refuses with one line naming the option, the value, the unit and the range', () => {
    expect(() => wholeNumberOption('timeout', '0', 1, 300, 'seconds')).toThrow(
      new CliError("--timeout '0' must be a whole number of seconds from 1 to 300"),
    );
    expect(() => wholeNumberOption('jobs', '1.5', 0, 1_000_000)).toThrow(
      new CliError("--jobs '1.5' must be a whole number from 0 to 1000000"),
    );
  });
});

describe("whole-number settings in the environment (recording limits, index shards, npm start's PORT and concurrency)", () => {
  it('takes the fallback when unset or empty, else digits within the range', () => {
    expect(wholeNumberSetting('CXM_X', 7, 1, 10, {})).toBe(7);
    expect(wholeNumberSetting('CXM_X', undefined, 1, 10, { CXM_X: '' })).toBeUndefined();
    expect(wholeNumberSetting('CXM_X', 7, 1, 10, { CXM_X: '10' })).toBe(10);
  });

  it.each(['0', '11', '1e1', ' 5', '5.0', 'ten'])(
    'refuses %j naming the variable, the value and the range',
    (value) => {
      expect(() => wholeNumberSetting('CXM_X', 7, 1, 10, { CXM_X: value })).toThrow(
        `CXM_X=${value} is not valid; give a whole number from 1 to 10.`,
      );
    },
  );
});
