/**
 * The local gateway's own origins and hosts: what the functions of a route that checks
 * origins accept when served on 127.0.0.1:<port>. A browser page of any other origin, and a name
 * rebound to 127.0.0.1 (which arrives as a foreign Host), is refused, as the MCP SDK's DNS-rebinding
 * protection refuses them for local servers.
 */
import { FUNCTION_ENV } from '#shared/settings/setting-names';

/** Both lists, comma-separated, under the names the functions read. */
export type LocalOriginsEnv = Record<typeof FUNCTION_ENV.allowedOrigins | typeof FUNCTION_ENV.allowedHosts, string>;

/** The names a local server answers to, on any port (the MCP SDK's `localhostHostValidation` list). */
export const LOCAL_HOST_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The environment additions of a gateway listening on 127.0.0.1:`port`: its own origins, and the
 * local host names on any port, so a port forward reaches it while a rebound name does not.
 */
export function localOrigins(port: number): LocalOriginsEnv {
  return {
    [FUNCTION_ENV.allowedOrigins]: [`127.0.0.1:${port}`, `localhost:${port}`].map((host) => `http://${host}`).join(','),
    [FUNCTION_ENV.allowedHosts]: LOCAL_HOST_NAMES.join(','),
  };
}

function union(existing: string | undefined, added: string): string {
  const entries = [...(existing ?? '').split(','), ...added.split(',')]
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return [...new Set(entries)].join(',');
}

/**
 * `env` with `additions` merged in: each list becomes the union of both, because one process can
 * serve several gateways (a test run does), and each must keep accepting its own origins.
 *
 * @example withLocalOrigins(process.env, localOrigins(3000)) // CXM_ALLOWED_ORIGINS: '…,http://127.0.0.1:3000,…'
 */
export function withLocalOrigins<Env extends Record<string, string | undefined>>(
  env: Env,
  additions: LocalOriginsEnv,
): Env & LocalOriginsEnv {
  const merged = Object.entries(additions).map(([name, added]) => [name, union(env[name], added)]);
  return { ...env, ...(Object.fromEntries(merged) as LocalOriginsEnv) };
}
