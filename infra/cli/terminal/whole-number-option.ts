/** The CLI's whole-number options (counts, days, seconds, runs), read as every whole number is (parse-whole-number.ts). */
import { parseWholeNumber } from '#shared/settings/parse-whole-number';
import { CliError } from './cli-error.ts';

/**
 * The option's number, or the CLI's one-line refusal naming the option, the value and the range;
 * `unit` (e.g. `seconds`) goes into it when the option counts one.
 */
export function wholeNumberOption(option: string, value: string, min: number, max: number, unit?: string): number {
  const n = parseWholeNumber(value, min, max);
  if (n === undefined)
    throw new CliError(
      `--${option} '${value}' must be a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}`,
    );
  return n;
}
