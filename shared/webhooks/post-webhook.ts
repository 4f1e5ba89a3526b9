/**
 * One delivery attempt: the signed POST of a webhook to its endpoint, and what it came to. The
 * target is checked twice, as a URL (`checkWebhookUrl`) and, for a host name, on every address it
 * resolves to when the connection is made (a name can be rebound to an internal address between
 * registration and delivery); redirects are not followed, since a 3xx could point anywhere; the
 * whole exchange has 15 seconds; the receiver's answer is read no further than its status line and
 * headers.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
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

export interface PostWebhookOptions {
  timeoutMs?: number;
  /** How host names resolve (all addresses); the system resolver unless a test gives another. */
  resolve?: (hostname: string, done: (error: Error | null, addresses: LookupAddress[]) => void) => void;
  /** The attempt's clock, for Retry-After given as a date. */
  now?: () => number;
}

const systemResolve: NonNullable<PostWebhookOptions['resolve']> = (hostname, done) =>
  dnsLookup(hostname, { all: true } satisfies LookupAllOptions, (error, addresses) => done(error, addresses ?? []));

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
function guardedLookup(rules: WebhookTargetRules, resolve: NonNullable<PostWebhookOptions['resolve']>): LookupFunction {
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
  options: Pick<PostWebhookOptions, 'resolve'> = {},
): Promise<UrlCheck> {
  const checked = checkWebhookUrl(text, rules);
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

/** What the deliveries list shows for a connection that gave no status. */
function failureReason(error: unknown, timeoutMs: number): string {
  if (error instanceof RefusedAddress) return `refused: ${error.message}`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ABORT_ERR' || (error instanceof Error && error.name === 'AbortError'))
    return `no answer within ${timeoutMs / 1000} s`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'the host name does not resolve';
  if (code === 'ECONNRESET') return 'the connection was reset';
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return `TLS: ${code}`;
  return error instanceof Error ? error.message : String(error);
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
  const checked = checkWebhookUrl(url, rules);
  if (!checked.ok) return Promise.resolve({ kind: 'failed', reason: `refused: ${checked.reason}` });
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const send = checked.url.protocol === 'https:' ? httpsRequest : httpRequest;
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
    request.on('error', (error) => resolve({ kind: 'failed', reason: failureReason(error, timeoutMs) }));
    request.end(body);
  });
}
