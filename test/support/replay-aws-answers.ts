/**
 * Recorded AWS answers served over real HTTP on 127.0.0.1, for the services the CLI reads that have
 * no fake of their own: Lambda (REST-JSON: an answer per `METHOD /path`) and CloudWatch Logs and
 * Amazon Transcribe (JSON 1.1: an answer per `X-Amz-Target`, e.g.
 * `Logs_20140328.DescribeResourcePolicies`). The SDK is pointed at it with
 * AWS_ENDPOINT_URL_LAMBDA, _CLOUDWATCH_LOGS and _TRANSCRIBE (one server can stand for all three, as
 * each protocol names its operation its own way), so the code under test builds, signs, sends and
 * parses every call exactly as it does against AWS. A listing in pages is served by the token the
 * request carries (`nextToken` or `NextToken`), as the service chains them; a request the replay
 * has no answer for is answered 500 `ReplayHasNoAnswer`, so a test cannot pass on a call it did
 * not expect.
 */
import { createServer } from 'node:http';
import { type RecordedAnswer, sendRecordedAnswer } from './recorded-aws-answer.ts';

export interface AwsReplay {
  endpoint: string;
  /** Every request, in order: its route (target or `METHOD /path`) and JSON body. */
  calls: { route: string; body: unknown }[];
  close(): Promise<void>;
}

/** The pagination token of a JSON 1.1 request or answer, under either of the names AWS uses. */
const tokenOf = (body: unknown): unknown =>
  (body as { nextToken?: unknown; NextToken?: unknown } | undefined)?.nextToken ??
  (body as { NextToken?: unknown } | undefined)?.NextToken;

/** `routes`: route -> its answer, or the pages of a listing. */
export async function startAwsReplay(routes: Record<string, RecordedAnswer | RecordedAnswer[]>): Promise<AwsReplay> {
  const calls: AwsReplay['calls'] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const target = req.headers['x-amz-target'];
      const route =
        typeof target === 'string'
          ? target
          : `${req.method} ${decodeURIComponent(new URL(req.url ?? '/', 'http://replay').pathname)}`;
      const body: unknown = text ? JSON.parse(text) : undefined;
      calls.push({ route, body });
      const answer = routes[route];
      if (answer === undefined) {
        return sendRecordedAnswer(res, {
          status: 500,
          headers: { 'x-amzn-ErrorType': 'ReplayHasNoAnswer' },
          body: { __type: 'ReplayHasNoAnswer', message: `the replay has no answer for ${route}` },
        });
      }
      if (!Array.isArray(answer)) return sendRecordedAnswer(res, answer);
      const token = tokenOf(body);
      const page =
        token === undefined ? answer[0] : answer.find((_, i) => i > 0 && tokenOf(answer[i - 1]!.body) === token);
      if (!page)
        return sendRecordedAnswer(res, {
          status: 400,
          body: { __type: 'InvalidParameterException', message: `unknown pagination token ${String(token)}` },
        });
      sendRecordedAnswer(res, page);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
