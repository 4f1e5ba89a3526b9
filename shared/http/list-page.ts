/**
 * A page of a list: how large its body may grow, and the link to the page after it.
 */

/**
 * A page stops growing past this many bytes of body, measured as escaped in the Lambda response
 * envelope (the body is a JSON string there): Lambda refuses responses over 6 MB.
 */
export const RESPONSE_BUDGET_BYTES = 5 * 1024 * 1024;

/**
 * `Link: <url?...>; rel="next"` (RFC 8288) to the page after this one.
 *
 * @example nextLink(request.http.selfUrl, { limit: '100', cursor }) // '<https://…?limit=100&cursor=…>; rel="next"'
 */
export function nextLink(selfUrl: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  return `<${selfUrl}?${params.toString()}>; rel="next"`;
}
