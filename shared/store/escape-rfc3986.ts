/**
 * RFC 3986 escaping of a URI path segment or a query name or value: what SigV4 signs (every
 * character but the unreserved `A-Z a-z 0-9 - . _ ~`), so a URL built with it sends exactly the
 * bytes its signature covers. `encodeURIComponent` leaves `! ' ( ) *` as they are.
 */
export function escapeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
