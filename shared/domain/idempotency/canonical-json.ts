/**
 * JSON text in one spelling per value: object members sorted by name, no white space. Two bodies
 * that parse to the same value (members in another order, other spacing, `1.0` for `1`) give the
 * same text, so a retry that re-serialises its body is still recognised as the same request.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
