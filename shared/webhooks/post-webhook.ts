/**
 * One delivery attempt: the signed POST of a webhook to its endpoint, and what it came to. The
 * target is checked twice, as a URL (`checkWebhookUrl`) and, for a host name, on every address it
 * resolves to when the connection is made (a name can be rebound to an internal address between
 * registration and delivery); redirects are not followed, since a 3xx could point anywhere; the
 * whole exchange has 15 seconds, of which the name's resolution and the connection have 5 each and
 * the wait for the answer after the request 10; the receiver's answer is read no further than its
 * status line and headers.
 *
 * Names are resolved by DNS queries on the event loop (c-ares), with a timeout, and never by
 * `dns.lookup`: that runs on libuv's four threads shared by the whole process and cannot be
 * cancelled, so four names at a silent nameserver would stall every other tenant's attempt.
 *
 * What a failure records is one of a few coarse kinds (could not connect, timed out, TLS, an HTTP
 * status): the deliveries list is not a port scanner's report of someone else's network.
 */
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type AttemptOutcome, parseRetryAfter } from '#shared/domain/webhooks/retry-schedule';
import type { WebhookHeaders } from '#shared/domain/webhooks/sign-webhook';
import {
  checkWebhookUrl,
  isLoopbackAddress,
  isPublicAddress,
  type UrlCheck,
  type WebhookTargetRules,
} from '#shared/domain/webhooks/webhook-target';

/** Standard Webhooks' advice, and what a receiver is given to answer. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** A receiver that takes longer to accept a connection (TLS included) is as good as down. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** From the request's last byte to the answer's status line: Standard Webhooks asks for a quick 2xx. */
export const FIRST_BYTE_TIMEOUT_MS = 10_000;
/**
 * A name's first try; c-ares doubles the wait for the second, so a nameserver that does not answer
 * costs this attempt under 5 s.
 */
const RESOLVE_TRY_MS = 1_500;
const RESOLVE_TRIES = 2;

export type ResolveAll = (hostname: string, done: (error: Error | null, addresses: LookupAddress[]) => void) => void;

export interface PostWebhookOptions {
  timeoutMs?: number;
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  /** How host names resolve (all addresses); DNS (`dnsResolve()`) unless a test gives another. */
  resolve?: ResolveAll;
  /** The hosts the API itself answers on (`host` or `host:port`), never a target. */
  ownHosts?: readonly string[];
  /** The attempt's clock, for Retry-After given as a date. */
  now?: () => number;
}

/**
 * Resolution by DNS queries (A and AAAA at once) with a timeout, on a resolver of its own so that
 * ending one cancels nobody else's; `localhost` is this machine's loopback (RFC 6761), never asked.
 * `servers` points it at given nameservers (a test's); default the system's. A try waits `tryMs`.
 *
 * @example postWebhook(url, rules, headers, body, { resolve: dnsResolve() })
 */
export function dnsResolve(
  servers?: readonly string[],
  { tryMs = RESOLVE_TRY_MS, tries = RESOLVE_TRIES } = {},
): ResolveAll {
  return (hostname, done) => {
    if (hostname === 'localhost')
      return done(null, [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
    const resolver = new Resolver({ timeout: tryMs, tries });
    if (servers) resolver.setServers([...servers]);
    void Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]).then(([v4, v6]) => {
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length > 0) return done(null, addresses);
      const failure = [v4, v6].find((result): result is PromiseRejectedResult => result.status === 'rejected');
      done(failure?.reason instanceof Error ? failure.reason : new Error(`${hostname} has no address`), []);
    });
  };
}

const systemResolve = dnsResolve();

/** Raised by the connection's lookup: the name resolved, but to no address a delivery may reach. */
class RefusedAddress extends Error {}

/**
 * The addresses of `hostname` a delivery may connect to: public ones, or on a local stage, for
 * `localhost`, this machine's loopback addresses (never what a resolver falling through to a search
 * domain might add).
 */
function allowedAddresses(hostname: string, rules: WebhookTargetRules, addresses: LookupAddress[]): LookupAddress[] {
  return addresses.filter((entry) =>
    rules === 'local' && hostname === 'localhost' ? isLoopbackAddress(entry.address) : isPublicAddress(entry.address),
  );
}

/**
 * The connection's lookup: every address the name resolves to is checked, and only the allowed
 * ones are connected to.
 */
function guardedLookup(rules: WebhookTargetRules, resolve: ResolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const allowed = allowedAddresses(hostname, rules, addresses);
      // The addresses stay out of the reason a tenant reads: it would answer which internal names
      // resolve, and to what.
      if (allowed.length === 0) return callback(new RefusedAddress(`${hostname} resolves to no public address`), '', 0);
      if (options.all) return (callback as (error: null, addresses: LookupAddress[]) => void)(null, allowed);
      const [first] = allowed as [LookupAddress];
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * Whether `text` may be registered as an endpoint under `rules`: the URL's own rules, then, for a
 * host name, whether it resolves to an address a delivery may reach (each attempt checks again).
 *
 * @example const checked = await checkWebhookTarget(body.url, webhookTargetRules()); if (!checked.ok) throw badRequest(checked.reason);
 */
export async function checkWebhookTarget(
  text: string,
  rules: WebhookTargetRules,
  options: Pick<PostWebhookOptions, 'resolve' | 'ownHosts'> = {},
): Promise<UrlCheck> {
  const checked = checkWebhookUrl(text, rules, options.ownHosts);
  if (!checked.ok) return checked;
  const hostname = checked.url.hostname;
  // An address literal was judged by checkWebhookUrl.
  if (hostname.startsWith('[') || isIP(hostname) !== 0) return checked;
  const resolve = options.resolve ?? systemResolve;
  const addresses = await new Promise<LookupAddress[] | undefined>((done) =>
    resolve(hostname, (error, found) => done(error ? undefined : found)),
  );
  if (addresses === undefined || addresses.length === 0)
    return { ok: false, reason: `${hostname} does not resolve: register a host name that does` };
  return allowedAddresses(hostname, rules, addresses).length > 0
    ? checked
    : { ok: false, reason: `${hostname} resolves to no public address` };
}

/** Raised when the connection is not made within its own time. */
class ConnectTimeout extends Error {}
/** Raised when the answer does not begin within its own time of the request's end. */
class FirstByteTimeout extends Error {}

/**
 * What the deliveries list shows for a connection that gave no status: a coarse kind, never the
 * network's detail (refused, reset, unreachable, which TLS error).
 */
function failureReason(
  error: unknown,
  timeouts: { timeoutMs: number; connectTimeoutMs: number; firstByteTimeoutMs: number },
): string {
  if (error instanceof RefusedAddress) return `refused: ${error.message}`;
  if (error instanceof ConnectTimeout) return `timed out: no connection within ${timeouts.connectTimeoutMs / 1000} s`;
  if (error instanceof FirstByteTimeout)
    return `timed out: no answer within ${timeouts.firstByteTimeoutMs / 1000} s of the request`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ABORT_ERR' || (error instanceof Error && error.name === 'AbortError'))
    return `timed out: no answer within ${timeouts.timeoutMs / 1000} s`;
  if (code === 'ETIMEOUT') return 'timed out: the host name did not resolve in time';
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT') || code?.startsWith('ERR_SSL'))
    return 'TLS: the secure connection could not be made';
  return 'could not connect';
}

/**
 * Ends `request` with a ConnectTimeout unless its socket connects (and for https, secures) in time,
 * and with a FirstByteTimeout unless the answer begins in time once the request is sent.
 */
function limitPhases(
  request: ClientRequest,
  secure: boolean,
  limits: { connectMs: number; firstByteMs: number },
): void {
  request.once('socket', (socket) => {
    const timer = setTimeout(() => request.destroy(new ConnectTimeout()), limits.connectMs);
    socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
  request.once('finish', () => {
    const timer = setTimeout(() => request.destroy(new FirstByteTimeout()), limits.firstByteMs);
    request.once('response', () => clearTimeout(timer));
    request.once('close', () => clearTimeout(timer));
  });
}

/** What an answer's status makes of the attempt. */
function outcomeOf(response: IncomingMessage, now: number): AttemptOutcome {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 410) return { kind: 'gone' };
  const retryAfter = response.headers['retry-after'];
  const reason = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
  return { kind: 'failed', reason, status, retryAfterMs: parseRetryAfter(retryAfter, now) };
}

/**
 * POSTs `body` with its signature headers to `url`, allowed by `rules`, and tells what came of it;
 * it never throws for what the receiver or the network did.
 *
 * @example const outcome = await postWebhook('https://hooks.example.com/cxm', 'stage', headers, body);
 */
export function postWebhook(
  url: string,
  rules: WebhookTargetRules,
  headers: WebhookHeaders,
  body: string,
  options: PostWebhookOptions = {},
): Promise<AttemptOutcome> {
  const checked = checkWebhookUrl(url, rules, options.ownHosts);
  if (!checked.ok) return Promise.resolve({ kind: 'failed', reason: `refused: ${checked.reason}` });
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? FIRST_BYTE_TIMEOUT_MS;
  const secure = checked.url.protocol === 'https:';
  const now = options.now ?? Date.now;
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(
      checked.url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'cxm-webhooks/1',
        },
        lookup: guardedLookup(rules, options.resolve ?? systemResolve),
        signal: AbortSignal.timeout(timeoutMs),
        agent: false,
      },
      (response) => {
        resolve(outcomeOf(response, now()));
        // Nothing of the body is kept: the status and headers are the answer.
        response.destroy();
      },
    );
    limitPhases(request, secure, { connectMs: connectTimeoutMs, firstByteMs: firstByteTimeoutMs });
    request.on('error', (error) =>
      resolve({ kind: 'failed', reason: failureReason(error, { timeoutMs, connectTimeoutMs, firstByteTimeoutMs }) }),
    );
    request.end(body);
  });
}
