/**
 * Where a webhook may be sent. A delivery is a request the service makes on a tenant's say-so, so
 * the URL must not turn it against the service's own network (SSRF): on a stage only `https` to a
 * host whose addresses are public unicast (no loopback, private, link-local, carrier-grade NAT,
 * unique-local, multicast, reserved or translated ranges: the instance metadata endpoints
 * 169.254.169.254 and fd00:ec2::254 among them). The URL is checked when an endpoint is registered;
 * the address each attempt connects to is checked again after resolution (a name can be rebound),
 * with `isPublicAddress`. Only https's own port, 443: a service that connects to any port a tenant
 * names is a port scanner for hire. Never the API's own hosts, which would have the service call
 * itself. Locally the receivers are on this machine, so `http` and `https` to 127.0.0.1, localhost
 * and [::1] on any port are allowed as well.
 */
import ipaddr from 'ipaddr.js';
import { WEBHOOK_URL_MAX_LENGTH } from './webhook-endpoint.ts';

/** Which targets are allowed: a deployed stage's, or the local runtime's. */
export type WebhookTargetRules = 'stage' | 'local';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Whether a connection to `address` (an IPv4 or IPv6 literal) stays off the service's own network.
 *
 * @example isPublicAddress('93.184.215.14') // true; isPublicAddress('169.254.169.254') // false
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it reaches.
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  // IPv6 unicast outside 2000::/3, the global block (IPv4-compatible ::a9fe:a9fe among them), is
  // no one's public address.
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether `address` is this machine's own (loopback, IPv4-mapped included).
 *
 * @example isLoopbackAddress('127.0.0.1') // true; isLoopbackAddress('10.0.0.1') // false
 */
export function isLoopbackAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';
}

/** The host of a URL as an address literal, when it is one (IPv6 without its brackets). */
function addressLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
}

/** The host of `url` as compared with the API's own hosts: lower case, port kept, no final dot. */
function comparableHost(url: URL): string {
  return url.port === '' ? url.hostname.replace(/\.$/, '') : `${url.hostname.replace(/\.$/, '')}:${url.port}`;
}

/**
 * Whether `text` may be a webhook endpoint's URL under `rules`, with the reason when it may not.
 * `ownHosts` are the hosts the API itself answers on (`host` or `host:port`), refused.
 *
 * @example checkWebhookUrl('https://hooks.example.com/cxm', 'stage') // { ok: true, url }
 */
export function checkWebhookUrl(text: string, rules: WebhookTargetRules, ownHosts: readonly string[] = []): UrlCheck {
  if (text.length > WEBHOOK_URL_MAX_LENGTH)
    return { ok: false, reason: `a webhook URL is at most ${WEBHOOK_URL_MAX_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'a webhook URL is an absolute URL, such as https://hooks.example.com/cxm' };
  }
  if (url.username || url.password)
    return { ok: false, reason: 'a webhook URL carries no credentials: each delivery is signed instead' };
  if (ownHosts.includes(comparableHost(url)))
    return { ok: false, reason: `${comparableHost(url)} is this API's own host: give a receiver of yours` };
  if (rules === 'local' && LOOPBACK_NAMES.has(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:'))
    return { ok: true, url };
  if (url.protocol !== 'https:')
    return {
      ok: false,
      reason:
        rules === 'local'
          ? 'a webhook URL is https, or http to 127.0.0.1, localhost or [::1] on a local stage'
          : 'a webhook URL is https',
    };
  // The parser leaves the port empty when it is the scheme's own (443).
  if (url.port !== '') return { ok: false, reason: `a webhook URL uses https's own port, 443, not ${url.port}` };
  // The URL parser has already turned every IPv4 spelling (2130706433, 0x7f.1) into dotted decimal.
  const literal = addressLiteral(url.hostname);
  if (literal !== undefined)
    return isPublicAddress(literal)
      ? { ok: true, url }
      : { ok: false, reason: `${url.hostname} is not a public address` };
  const name = url.hostname.replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost') || !name.includes('.'))
    return { ok: false, reason: `${url.hostname} is not a public host name` };
  return { ok: true, url };
}
