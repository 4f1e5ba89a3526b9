/**
 * The HTTP layer of the OpenSearch client, replaced: its transport records each request as the
 * client sends it (after signing, when the client signs) and answers from a queue of recorded
 * responses, so adapters are tested through the real client, its signing, retries and parsing.
 * Over real HTTP, test/support/opensearch-stub.ts plays the cluster instead.
 */
import { Readable } from 'node:stream';
import { buildQueryString, HttpResponse } from '@smithy/core/protocols';
import type { OpenSearchTransport } from '#shared/store/opensearch-client';

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
  /** The Host header sent: the endpoint's host. */
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

  const transport: OpenSearchTransport = {
    async handle(request) {
      const body = typeof request.body === 'string' ? request.body : '';
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
      );
      requests.push({
        method: request.method,
        host: headers.host ?? '',
        path: request.path,
        // As the SDK's handler writes it on the wire.
        querystring: buildQueryString(request.query ?? {}),
        headers,
        body,
        json: parseBody(body),
      });
      const answer = queue.shift() ?? {
        statusCode: 599,
        body: { error: 'the test recorded no response for this request' },
      };
      await new Promise((resolve) => setImmediate(resolve));
      // As the handler rejects when no answer comes: with the socket's error.
      if ('fail' in answer) throw new Error(answer.fail);
      const text = 'text' in answer ? answer.text : JSON.stringify(answer.body);
      // A redirect carries where it points, which a client following it would go to.
      const answerHeaders: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
      if (answer.statusCode >= 300 && answer.statusCode < 400)
        answerHeaders.location = 'https://elsewhere.example.com/';
      const response = new HttpResponse({
        statusCode: answer.statusCode,
        headers: answerHeaders,
        body: Readable.from(text === '' ? [] : [Buffer.from(text)]),
      });
      return { response };
    },
  };

  return { transport, requests, pending: () => queue.length };
}
