/** HTTP header names are case-insensitive; API Gateway passes them in the client's case. */
export function findHeader(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** Every value of a header that may come on several lines (API Gateway's `multiValueHeaders`). */
export function findHeaderValues(
  headers: Record<string, string[] | undefined> | null | undefined,
  name: string,
): string[] {
  if (!headers) return [];
  const wanted = name.toLowerCase();
  return Object.entries(headers).flatMap(([key, values]) => (key.toLowerCase() === wanted ? (values ?? []) : []));
}
