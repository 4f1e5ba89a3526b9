/**
 * The HTTP layer of the official OpenSearch client, replaced: each request is recorded as the
 * client would have sent it (after signing, when the client signs) and answered from a queue of
 * recorded responses, so adapters are tested through the real client, serializer and transport.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { Connection, errors } from '@opensearch-project/opensearch';

export interface RecordedResponse {
  statusCode: number;
  body: unknown;
}

/** A connection-level failure (refused, reset) instead of an answer. */
export interface ConnectionFailure {
  fail: string;
}

export interface SentRequest {
  method: string;
  path: string;
  querystring: string;
  headers: Record<string, unknown>;
  body: string;
  /** The body parsed: one JSON value, or a list of them for NDJSON. */
  json: unknown;
}

type ConnectionRequest = Parameters<Connection['request']>;

function parseBody(body: string): unknown {
  if (body === '') return undefined;
  if (body.endsWith('\n')) return body.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
  return JSON.parse(body) as unknown;
}

export function fakeOpenSearch(...answers: Array<RecordedResponse | ConnectionFailure>) {
  const requests: SentRequest[] = [];
  const queue = [...answers];

  class FakeConnection extends Connection {
    override request(params: ConnectionRequest[0], callback: ConnectionRequest[1]): ClientRequest {
      // buildRequestObject is where a signing connection adds its headers.
      const built = this.buildRequestObject(params);
      const body = typeof params.body === 'string' ? params.body : Buffer.isBuffer(params.body) ? params.body.toString('utf8') : '';
      requests.push({
        method: String(params.method),
        path: String(params.path),
        querystring: typeof params.querystring === 'string' ? params.querystring : '',
        headers: { ...(built.headers as Record<string, unknown>) },
        body,
        json: parseBody(body),
      });
      const answer = queue.shift() ?? { statusCode: 599, body: { error: 'the test recorded no response for this request' } };
      setImmediate(() => {
        if ('fail' in answer) {
          callback(new errors.ConnectionError(answer.fail), null);
          return;
        }
        const response = new PassThrough();
        Object.assign(response, { statusCode: answer.statusCode, headers: { 'content-type': 'application/json; charset=UTF-8' } });
        callback(null, response as unknown as IncomingMessage);
        response.end(JSON.stringify(answer.body));
      });
      return { abort: () => undefined } as unknown as ClientRequest;
    }
  }

  return { Connection: FakeConnection as typeof Connection, requests, pending: () => queue.length };
}
