/** `Link: <url?...>; rel="next"` (RFC 8288) to the page after this one. */
export function nextLink(selfUrl: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  return `<${selfUrl}?${params.toString()}>; rel="next"`;
}
