/**
 * A whole-number setting from the environment (a function's limit, npm start's port): the
 * fallback when unset or empty, else digits within min..max, else an error naming the variable,
 * the value and the range, thrown where the setting is read (a function's cold start, npm start).
 */
import { parseWholeNumber } from './parse-whole-number.ts';

export function wholeNumberSetting<F extends number | undefined>(
  name: string,
  fallback: F,
  min: number,
  max: number,
  env: NodeJS.ProcessEnv = process.env,
): number | F {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = parseWholeNumber(raw, min, max);
  if (value === undefined) throw new Error(`${name}=${raw} is not valid; give a whole number from ${min} to ${max}.`);
  return value;
}
