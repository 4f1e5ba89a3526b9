/**
 * The HTTP layer of the OpenSearch client, replaced: its `fetch` records each request as the
 * client sends it (after signing, when the client signs) and answers from a queue of recorded
 * responses, so adapters are tested through the real client, its signing, retries and parsing.
 * Over real HTTP, test/support/opensearch-stub.ts plays the cluster instead.
 */
/**
 * Where the tests' clients send to, with what they sign: every request is signed (the client signs
 * all but a basic-auth URL's), so a fake cluster gets credentials of its own.
 */
export const FAKE_CLUSTER = {
  endpoint: 'http://127.0.0.1:9200',
  region: 'us-east-1',
  credentials: async () => ({ accessKeyId: 'AKIDFAKECLUSTER', secretAccessKey: 'fake-cluster-secret' }),
};

export interface RecordedResponse {
  statusCode: number;
  body: unknown;
}

/** An answer whose body is this text as it is (empty, or not JSON). */
export interface RawResponse {
  statusCode: number;
  text: string;
}

/** A connection-level failure (refused, reset) instead of an answer. */
export interface ConnectionFailure {
  fail: string;
}

export interface SentRequest {
  method: string;
  /** What fetch sends as Host: the URL's host. */
  host: string;
  path: string;
  querystring: string;
  /** By lower-case name. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed: one JSON value, or a list of them for NDJSON. */
  json: unknown;
}

function parseBody(body: string): unknown {
  if (body === '') return undefined;
  if (body.endsWith('\n'))
    return body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
  return JSON.parse(body) as unknown;
}

export function fakeOpenSearch(...answers: Array<RecordedResponse | RawResponse | ConnectionFailure>) {
  const requests: SentRequest[] = [];
  const queue = [...answers];

  const fakeFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const body = typeof init.body === 'string' ? init.body : '';
    const headers = Object.fromEntries([...new Headers(init.headers).entries()]);
    requests.push({
      method: init.method ?? 'GET',
      host: url.host,
      path: url.pathname,
      querystring: url.search.slice(1),
      headers,
      body,
      json: parseBody(body),
    });
    const answer = queue.shift() ?? {
      statusCode: 599,
      body: { error: 'the test recorded no response for this request' },
    };
    await new Promise((resolve) => setImmediate(resolve));
    // As undici rejects when no answer comes: a TypeError whose cause is the socket's error.
    if ('fail' in answer) throw new TypeError('fetch failed', { cause: new Error(answer.fail) });
    const text = 'text' in answer ? answer.text : JSON.stringify(answer.body);
    // A redirect carries where it points, which a client following it would go to.
    const answerHeaders: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
    if (answer.statusCode >= 300 && answer.statusCode < 400) answerHeaders.location = 'https://elsewhere.example.com/';
    return new Response(text === '' ? null : text, { status: answer.statusCode, headers: answerHeaders });
  };

  return { fetch: fakeFetch as typeof fetch, requests, pending: () => queue.length };
}
