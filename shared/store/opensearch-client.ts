/**
 * The few OpenSearch requests the reporting lists and the indexer make (a search, a bulk, an
 * index-template put), sent with the AWS SDK's own HTTP handler (`NodeHttpHandler`, which the
 * DynamoDB client has loaded already). Every request is signed with SigV4 (service `es`, the
 * function's region and credentials, signed by the SDK's own `SignatureV4`), as an Amazon
 * OpenSearch Service domain requires and the local engine requires too (it checks the signature
 * against the local stack's credentials); only a cluster whose URL carries its own user:password is
 * sent that instead.
 *
 * Why not the official client: it is most of what a list on an OpenSearch stage loads at cold start
 * (264 KB of the bundle, a 1.5x import against a bare function), for three requests whose shape we
 * build ourselves anyway. Why not the platform's `fetch`: its first call loads Node's undici (with
 * http2, web streams and worker_threads), a cold start's largest single cost after the bundle
 * itself, which the SDK's handler over `node:https` does not pay. What we keep of the official
 * client is its behaviour: retries of connection failures, timeouts and 502/503/504 (never of 429,
 * which asks the caller to slow down), and an error carrying the status and body of any answer >=
 * 400 (and of a redirect, never followed). The timeout is stricter: it covers the whole attempt, the
 * answer's body included (the official client's stopped counting once the headers came), so the
 * indexer's largest bulk (5 MiB) has its 20 s per attempt in all.
 */
import { HttpRequest } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type {
  AwsCredentialIdentityProvider,
  HttpHandlerOptions,
  HttpResponse,
  HttpRequest as SentRequest,
} from '@smithy/types';
import { collectNodeStream } from './sdk-client-options.ts';
import { signingRegion, sigV4Signer } from './sigv4-signer.ts';

export interface OpenSearchClientOptions {
  /** `https://<domain endpoint>`, the local engine's `http://127.0.0.1:<port>`, or a cluster's `https://user:password@host`. */
  endpoint: string;
  /** Region of the domain; defaults to AWS_REGION. */
  region?: string;
  /** Credentials for signing; defaults to the standard provider chain. */
  credentials?: AwsCredentialIdentityProvider;
  /** Replaces the SDK's HTTP handler (tests record what is sent, after signing). */
  transport?: OpenSearchTransport;
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

/**
 * What sends a signed request and answers the response, its body a stream: the SDK's
 * `NodeHttpHandler`, which follows no redirect, or a test's fake.
 */
export interface OpenSearchTransport {
  handle(request: SentRequest, options?: HttpHandlerOptions): Promise<{ response: HttpResponse }>;
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

/** A local cluster's `https://user:password@host` becomes a Basic header, and its URL loses them. */
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

/** The answer's body as text; a stream the timeout destroyed, or one that broke, rejects. */
async function bodyText(response: HttpResponse): Promise<string> {
  if (response.body === undefined) return '';
  const bytes = await collectNodeStream(response.body);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

export function createOpenSearchClient(options: OpenSearchClientOptions): OpenSearchClient {
  const { requestTimeoutMs = 4_000, maxRetries = 1 } = options;
  const transport = options.transport ?? new NodeHttpHandler();
  const base = new URL(options.endpoint);
  const basic = basicAuthorization(base);
  let signer: ReturnType<typeof sigV4Signer> | undefined;
  if (signsRequests(options.endpoint)) {
    const region = signingRegion(`requests to ${options.endpoint}`, options.region);
    signer = sigV4Signer({ service: 'es', region, ...(options.credentials && { credentials: options.credentials }) });
  }
  const root = base.pathname.replace(/\/$/, '');

  async function attempt(request: OpenSearchRequest, body: string | undefined): Promise<OpenSearchResponse> {
    const unsigned = new HttpRequest({
      method: request.method,
      protocol: base.protocol,
      hostname: base.hostname,
      ...(base.port && { port: Number(base.port) }),
      path: `${root}${request.path}`,
      // Escaped once, as SigV4 canonicalises it (RFC 3986), by the signer and the handler alike.
      query: { ...request.query },
      headers: {
        host: base.host,
        accept: 'application/json',
        ...(body !== undefined && {
          'content-type': request.ndjson ? 'application/x-ndjson' : 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        }),
        ...(basic && { authorization: basic }),
      },
      body,
    });
    const sent: SentRequest = signer ? await signer.sign(unsigned) : unsigned;
    let status: number;
    let text: string;
    try {
      // The signal ends the attempt wherever it is: connecting, waiting, or reading the body.
      const { response } = await transport.handle(sent, { abortSignal: AbortSignal.timeout(requestTimeoutMs) });
      status = response.statusCode;
      text = await bodyText(response);
    } catch (error) {
      throw new OpenSearchConnectionError(`${request.method} ${sent.path} got no answer: ${describe(error)}`, {
        cause: error,
      });
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      // Not retried: a proxy or a misrouted endpoint answering HTML would answer it again.
      if (status < 400)
        throw new Error(`${request.method} ${sent.path} answered ${status} with a body that is not JSON`);
      parsed = text;
    }
    // A redirect is answered as the error it is here: a re-sent request would carry a signature
    // for another URL, or lose its authorization across origins.
    if (status >= 300) throw new OpenSearchResponseError(status, parsed);
    return { statusCode: status, body: parsed };
  }

  return {
    async request(request) {
      // NDJSON ends with a newline after its last line, or OpenSearch refuses the bulk.
      const body = request.ndjson
        ? `${request.ndjson.join('\n')}\n`
        : request.body === undefined
          ? undefined
          : JSON.stringify(request.body);
      for (let tries = 0; ; tries++) {
        try {
          return await attempt(request, body);
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
