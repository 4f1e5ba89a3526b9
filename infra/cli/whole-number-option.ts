/**
 * The CLI's one reader of whole-number options (counts, days, seconds, runs). Digits only: Number()
 * alone would take `1e3`, ` 5`, `0x10` or `1.0`, and an option that says a whole number should
 * refuse what it does not show as one.
 */
import { CliError } from './cli-error.ts';

/** The number when `value` is digits within min..max; undefined otherwise. */
export function parseWholeNumber(value: string, min: number, max: number): number | undefined {
  if (!/^\d{1,16}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

/**
 * The option's number, or the CLI's one-line refusal naming the option, the value and the range;
 * `unit` (e.g. `seconds`) goes into it when the option counts one.
 */
export function wholeNumberOption(option: string, value: string, min: number, max: number, unit?: string): number {
  const n = parseWholeNumber(value, min, max);
  if (n === undefined) throw new CliError(`--${option} '${value}' must be a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}`);
  return n;
}
