/**
 * Whether a record matches an EventBridge event pattern (the filter language of Pipes), for the
 * subset our filters use: nested objects, arrays of exact values, and `{"prefix": ...}`. A field
 * the pattern names must be present and match one of the listed values; fields it does not name
 * are free. Any other operator throws, so a pattern grown beyond this cannot pass untested.
 */
type Matcher = string | number | boolean | null | { prefix: string };

function matchesValue(matcher: Matcher, value: unknown): boolean {
  if (matcher === null || typeof matcher !== 'object') return value === matcher;
  const keys = Object.keys(matcher);
  if (keys.length === 1 && keys[0] === 'prefix' && typeof matcher.prefix === 'string') {
    return typeof value === 'string' && value.startsWith(matcher.prefix);
  }
  throw new Error(`unsupported pattern operator ${JSON.stringify(matcher)}`);
}

export function matchesEventPattern(pattern: Record<string, unknown>, record: unknown): boolean {
  if (record === null || typeof record !== 'object') return false;
  return Object.entries(pattern).every(([field, rule]) => {
    if (!(field in record)) return false;
    const value = (record as Record<string, unknown>)[field];
    if (Array.isArray(rule)) {
      // A list in the record matches when any of its members does.
      const values = Array.isArray(value) ? value : [value];
      return (rule as Matcher[]).some((matcher) => values.some((candidate) => matchesValue(matcher, candidate)));
    }
    if (rule !== null && typeof rule === 'object') return matchesEventPattern(rule as Record<string, unknown>, value);
    throw new Error(`pattern field ${field} must hold a list or an object, not ${JSON.stringify(rule)}`);
  });
}
