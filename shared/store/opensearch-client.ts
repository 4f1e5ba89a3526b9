/**
 * The few OpenSearch requests the reporting lists and the indexer make (a search, a bulk, an
 * index-template put), sent with the platform's `fetch`. Every request is signed with SigV4
 * (service `es`, the function's region and credentials, signed by the SDK's own `SignatureV4`), as
 * an Amazon OpenSearch Service domain requires and the local engine requires too (it checks the
 * signature against the local stack's credentials); only a cluster whose URL carries its own
 * user:password is sent that instead.
 *
 * Why not the official client: it is most of what a list on an OpenSearch stage loads at cold start
 * (264 KB of the bundle, a 1.5x import against a bare function), for three requests whose shape we
 * build ourselves anyway. What we keep of it is its behaviour: retries of connection failures,
 * timeouts and 502/503/504 (never of 429, which asks the caller to slow down), and an error
 * carrying the status and body of any answer >= 400 (and of a redirect, never followed). The
 * timeout is stricter: it covers the whole attempt, the answer's body included (the official
 * client's stopped counting once the headers came), so the indexer's largest bulk (5 MiB) has its
 * 20 s per attempt in all.
 */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { escapeRfc3986 } from './escape-rfc3986.ts';
import { type SigV4Options, signingRegion, sigV4Signer } from './sigv4-signer.ts';

export interface OpenSearchClientOptions {
  /** `https://<domain endpoint>`, the local engine's `http://127.0.0.1:<port>`, or a cluster's `https://user:password@host`. */
  endpoint: string;
  /** Region of the domain; defaults to AWS_REGION. */
  region?: string;
  /** Credentials for signing; defaults to the standard provider chain. */
  credentials?: AwsCredentialIdentityProvider;
  /** Replaces the platform's fetch (tests record what is sent, after signing). */
  fetch?: typeof fetch;
  /** Per attempt. The default fits the API functions' 10 s budget with one retry. */
  requestTimeoutMs?: number;
  /** Retries of connection errors, timeouts and 502/503/504 (never of 429). */
  maxRetries?: number;
}

export interface OpenSearchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Starts with `/`; its segments already escaped where needed (index names never need it). */
  path: string;
  query?: Record<string, string>;
  /** A JSON body, or the lines of an NDJSON body (bulk), sent as they are. */
  body?: unknown;
  ndjson?: readonly string[];
}

export interface OpenSearchResponse {
  statusCode: number;
  /** The parsed JSON answer (undefined for an empty one). */
  body: unknown;
}

export interface OpenSearchClient {
  /**
   * Resolves for a 2xx answer with a JSON body (or none); throws OpenSearchResponseError for a status >= 300,
   * OpenSearchConnectionError when no answer came, and an Error for a 2xx whose body is not JSON.
   */
  request(request: OpenSearchRequest): Promise<OpenSearchResponse>;
}

/** The cluster answered with a status >= 400 (after the retries that status allows), or a redirect. */
export class OpenSearchResponseError extends Error {
  override readonly name = 'OpenSearchResponseError';
  constructor(
    readonly statusCode: number,
    readonly body: unknown,
  ) {
    super(
      `OpenSearch answered ${statusCode}: ${typeof body === 'string' ? body : JSON.stringify(body)}`.slice(0, 1000),
    );
  }
}

/** No answer: a refused or reset connection, or a timeout. */
export class OpenSearchConnectionError extends Error {
  override readonly name = 'OpenSearchConnectionError';
}

const RETRIED_STATUSES = new Set([502, 503, 504]);

/**
 * SigV4 unless the endpoint carries its own basic-auth credentials.
 *
 * @example signsRequests('http://127.0.0.1:9200') // true: the local engine checks signatures too
 */
export function signsRequests(endpoint: string): boolean {
  return new URL(endpoint).username === '';
}

type Signer = (request: {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}) => Promise<Record<string, string>>;

function headerSigner(options: SigV4Options): Signer {
  const signer = sigV4Signer(options);
  return async ({ method, url, headers, body }) => {
    const signed = await signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port && { port: Number(url.port) }),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...headers, host: url.host },
      body,
    });
    // fetch sets Host from the URL, the same value that was signed.
    const { host: _host, ...sent } = signed.headers;
    return sent;
  };
}

/** A local cluster's `https://user:password@host` becomes a Basic header: fetch refuses credentials in URLs. */
function basicAuthorization(url: URL): string | undefined {
  if (url.username === '') return undefined;
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return error instanceof Error ? `${error.message}${cause}` : String(error);
}

export function createOpenSearchClient(options: OpenSearchClientOptions): OpenSearchClient {
  const { requestTimeoutMs = 4_000, maxRetries = 1 } = options;
  // The platform's fetch as it is at each request (not as it was when the client was made).
  const send: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const base = new URL(options.endpoint);
  const basic = basicAuthorization(base);
  let sign: Signer | undefined;
  if (signsRequests(options.endpoint)) {
    const region = signingRegion(`requests to ${options.endpoint}`, options.region);
    sign = headerSigner({ service: 'es', region, ...(options.credentials && { credentials: options.credentials }) });
  }
  const root = base.pathname.replace(/\/$/, '');

  async function attempt(request: OpenSearchRequest, url: URL, body: string | undefined): Promise<OpenSearchResponse> {
    let headers: Record<string, string> = {
      accept: 'application/json',
      ...(body !== undefined && { 'content-type': request.ndjson ? 'application/x-ndjson' : 'application/json' }),
      ...(basic && { authorization: basic }),
    };
    if (sign) headers = await sign({ method: request.method, url, headers, body });
    let status: number;
    let text: string;
    try {
      // No redirects: a re-sent request would carry a signature for another URL, or lose its
      // authorization across origins. A 3xx is answered as the error it is here.
      const response = await send(url, {
        method: request.method,
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw new OpenSearchConnectionError(`${request.method} ${url.pathname} got no answer: ${describe(error)}`, {
        cause: error,
      });
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      // Not retried: a proxy or a misrouted endpoint answering HTML would answer it again.
      if (status < 400)
        throw new Error(`${request.method} ${url.pathname} answered ${status} with a body that is not JSON`);
      parsed = text;
    }
    if (status >= 300) throw new OpenSearchResponseError(status, parsed);
    return { statusCode: status, body: parsed };
  }

  return {
    async request(request) {
      const url = new URL(`${root}${request.path}`, base);
      // Escaped as SigV4 canonicalises it (RFC 3986), so the bytes sent are the bytes signed;
      // URLSearchParams would send a space as '+', which the signature covers as '%20'.
      url.search = Object.entries(request.query ?? {})
        .map(([name, value]) => `${escapeRfc3986(name)}=${escapeRfc3986(value)}`)
        .join('&');
      // NDJSON ends with a newline after its last line, or OpenSearch refuses the bulk.
      const body = request.ndjson
        ? `${request.ndjson.join('\n')}\n`
        : request.body === undefined
          ? undefined
          : JSON.stringify(request.body);
      for (let tries = 0; ; tries++) {
        try {
          return await attempt(request, url, body);
        } catch (error) {
          const retried =
            error instanceof OpenSearchConnectionError ||
            (error instanceof OpenSearchResponseError && RETRIED_STATUSES.has(error.statusCode));
          if (!retried || tries >= maxRetries) throw error;
        }
      }
    },
  };
}
