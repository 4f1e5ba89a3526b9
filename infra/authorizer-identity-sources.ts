/**
 * The REQUEST authorizer's identity sources, which are also its cache key: the Authorization header
 * alone, so one authorizer call per key and TTL serves every path (a backend adding
 * notes to a thousand conversations makes one, not a thousand). The authorizer's answer depends on
 * the key only (functions/authorizer.ts). The stack declares them; bundle mode refuses a template
 * with others, since the local gateway's cache (per key) emulates exactly these.
 */
export const AUTHORIZER_IDENTITY_SOURCES = ['method.request.header.Authorization'] as const;
