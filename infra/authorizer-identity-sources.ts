/**
 * The REQUEST authorizer's identity sources, which are also its cache key: the key and the path
 * (issue 14), so a cached decision names the usage key of the path's tenant. The stack declares
 * them; bundle mode refuses a template with others, since the local gateway's cache (key + path)
 * emulates exactly these.
 */
export const AUTHORIZER_IDENTITY_SOURCES = ['method.request.header.Authorization', 'context.path'] as const;
