/**
 * What JSON.parse accepts but a stored document would not keep: numbers that overflow to
 * Infinity (serialised as null) or integers past 2^53 (rounded), text with lone surrogates
 * (`"\ud800"`: I-JSON forbids it and DynamoDB, which stores UTF-8, cannot hold it), and nesting so
 * deep that serialising or merging it would exhaust the stack. Walked iteratively for that reason.
 */
export const MAX_JSON_DEPTH = 100;

/** In `u` mode a surrogate pair is one code point, so only a lone half matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

function notUnicode(path: readonly (string | number)[]): string {
  return `'${memberPath(path)}' holds text that is not valid Unicode (a lone UTF-16 surrogate such as \\ud800); send well-formed characters.`;
}

function memberPath(path: readonly (string | number)[]): string {
  return path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('').replace(/^\./, '') || 'the body';
}

/** Why the parsed body cannot be kept as sent, or undefined when it can. */
export function describeUnfaithfulJson(body: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (path.length > MAX_JSON_DEPTH) return `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return notUnicode(path);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return `'${memberPath(path)}' holds a number too large for JSON (it would be stored as null).`;
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        return `'${memberPath(path)}' holds an integer beyond ±9007199254740991, which cannot be stored exactly; send it as a string.`;
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, path: [...path, index] }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) return notUnicode([...path, key]);
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return undefined;
}
