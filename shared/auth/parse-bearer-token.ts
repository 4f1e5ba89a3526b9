/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750), the scheme matched
 * case-insensitively (RFC 9110). Anything else is undefined, so every bad form is one 401.
 */
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

export function parseBearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}
