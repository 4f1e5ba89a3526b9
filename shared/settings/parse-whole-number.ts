/**
 * The project's one reader of whole numbers written as text (CLI options, settings in the
 * environment). Digits only: Number() alone would take `1e3`, ` 5`, `0x10` or `1.0`, and a value
 * that says it is a whole number should be refused when it does not show as one.
 */

/** The number when `value` is digits within min..max; undefined otherwise. */
export function parseWholeNumber(value: string, min: number, max: number): number | undefined {
  if (!/^\d{1,16}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}
