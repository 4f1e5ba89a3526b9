/**
 * The allow lists of the Origin check (routes that declare `checksOrigin`: MCP), as the functions
 * receive them: `CXM_ALLOWED_ORIGINS` (CDK sets it from the stage config on those routes; the local
 * gateway adds its own origins) and `CXM_ALLOWED_HOSTS` (set only by the local gateway: host names,
 * any port), named in FUNCTION_ENV. Both are comma-separated.
 *
 * Matching is the MCP SDK's (`WebStandardStreamableHTTPServerTransport`'s `allowedOrigins` and
 * `allowedHosts`: membership in the list), after both sides are reduced to what identifies an
 * origin or a host: scheme, host and port, the host in lower case, a default port dropped. So
 * `https://App.example.com:443` in the config allows the `https://app.example.com` a browser sends.
 */
import { FUNCTION_ENV } from '#shared/settings/setting-names';

/** `new URL`, or null where it throws (`URL.parse` needs Node 20.18; package.json allows 20.11). */
function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** A URL that is nothing but an authority (no credentials, path, query or fragment). */
function authorityOnly(url: URL): boolean {
  return url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
}

/**
 * `scheme://host[:port]` in its canonical form, or undefined for anything that is no such origin:
 * `null` (what sandboxed and file pages send), a bare host, a URL with a path.
 */
export function normaliseOrigin(value: string): string | undefined {
  const url = parseUrl(value.trim());
  if (url === null) return undefined;
  // Only http(s) have a tuple origin worth allowing; `url.origin` is "null" for the others.
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !authorityOnly(url)) return undefined;
  return url.origin;
}

/** `host[:port]` as a Host header carries it, in canonical form, or undefined when it is no host. */
export function normaliseHost(value: string): string | undefined {
  const host = value.trim();
  const url = host === '' ? null : parseUrl(`http://${host}`);
  return url !== null && authorityOnly(url) ? url.host : undefined;
}

function parseList(raw: string, normalise: (entry: string) => string | undefined): ReadonlySet<string> {
  const entries = raw.split(',').map((entry) => normalise(entry));
  return new Set(entries.filter((entry): entry is string => entry !== undefined));
}

/**
 * Reads a list from the environment at each request: in the local source mode several gateways
 * share one process and its environment, and each adds its origins when it starts. The parse is
 * kept for as long as the raw value stays the same, so a request costs one string comparison.
 */
function listReader(
  name: string,
  normalise: (entry: string) => string | undefined,
): () => ReadonlySet<string> | undefined {
  let cached: { raw: string; list: ReadonlySet<string> } | undefined;
  return () => {
    const raw = process.env[name];
    if (raw === undefined) return undefined;
    if (cached?.raw !== raw) cached = { raw, list: parseList(raw, normalise) };
    return cached.list;
  };
}

/** The host name of a `host[:port]`, lower case, or undefined when it is no host. */
function hostName(value: string): string | undefined {
  const host = normaliseHost(value);
  return host === undefined ? undefined : (parseUrl(`http://${host}`)?.hostname ?? undefined);
}

const readAllowedHostNames = listReader(FUNCTION_ENV.allowedHosts, hostName);

const readAllowedOrigins = listReader(FUNCTION_ENV.allowedOrigins, normaliseOrigin);

/**
 * Origins a request may name; unset means none (fail closed), as an empty list does. Where a list
 * of host names is set (the local gateway), an http origin on one of them is the machine's own on
 * any port, as its Host is: a page reached through a port forward, not a rebound name.
 */
export function isAllowedOrigin(origin: string): boolean {
  const normalised = normaliseOrigin(origin);
  if (normalised === undefined) return false;
  if (readAllowedOrigins()?.has(normalised)) return true;
  const url = new URL(normalised);
  return url.protocol === 'http:' && (readAllowedHostNames()?.has(url.hostname) ?? false);
}

/**
 * Hosts a request may address; with no list (a deployed stage: API Gateway routes by host) any.
 * The host name alone is compared, as the MCP SDK's `localhostHostValidation` does: DNS rebinding
 * arrives under a foreign name, while a port forward (`ssh -L 9000:127.0.0.1:3000`, an editor's
 * forwarded port) keeps the name and changes only the port.
 */
export function isAllowedHost(host: string | undefined): boolean {
  const allowed = readAllowedHostNames();
  if (allowed === undefined) return true;
  const name = host === undefined ? undefined : hostName(host);
  return name !== undefined && allowed.has(name);
}

/**
 * The `CXM_ALLOWED_ORIGINS` value of a configured list (CDK); `setting` names where the list is
 * written. A wrong entry fails the synth, with what to write instead, rather than silently
 * allowing nothing.
 */
export function allowedOriginsValue(origins: readonly string[], setting = 'allowed origins'): string {
  return origins
    .map((origin) => {
      const normalised = normaliseOrigin(origin);
      if (normalised === undefined) {
        throw new Error(
          `${setting}: "${origin}" is not an origin: write scheme://host[:port], for example https://app.example.com`,
        );
      }
      return normalised;
    })
    .join(',');
}
