/**
 * Base62 (`A-Z`, `a-z`, `0-9`): the alphabet of a key's secret and tag. Letters and digits only, so
 * a key stays one word that a double click selects whole and a URL carries unescaped.
 */

export const BASE62_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `value` modulo 62^`length`, written as exactly `length` base62 digits, most significant first.
 *
 * @example
 * base62Digits(61n, 2); // 'A9'
 * base62Digits(62n * 62n, 2); // 'AA' (the value wraps)
 */
export function base62Digits(value: bigint, length: number): string {
  let rest = value;
  let digits = '';
  for (let i = 0; i < length; i++) {
    digits = BASE62_ALPHABET[Number(rest % 62n)] + digits;
    rest /= 62n;
  }
  return digits;
}
