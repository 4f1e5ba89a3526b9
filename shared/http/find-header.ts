/** HTTP header names are case-insensitive; API Gateway passes them in the client's case. */
export function findHeader(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  // No entries array per call: this runs several times a request, over every header sent.
  for (const key in headers) if (key.length === wanted.length && key.toLowerCase() === wanted) return headers[key];
  return undefined;
}

/** Every value of a header that may come on several lines (API Gateway's `multiValueHeaders`). */
export function findHeaderValues(
  headers: Record<string, string[] | undefined> | null | undefined,
  name: string,
): string[] {
  if (!headers) return [];
  const wanted = name.toLowerCase();
  const found: string[] = [];
  for (const key in headers)
    if (key.length === wanted.length && key.toLowerCase() === wanted) found.push(...(headers[key] ?? []));
  return found;
}
