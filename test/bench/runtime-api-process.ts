/**
 * A stand-in of Lambda's Runtime API for the warm-overhead section, in a process of its own as
 * Lambda's is: `GET /2018-06-01/runtime/invocation/next` answers the event given on argv, each time
 * under a new request id, and `POST .../invocation/{id}/response` takes the answer. Listens on
 * 127.0.0.1 and prints its port; ends when its parent does (its stdin closes).
 *   node --import tsx test/bench/runtime-api-process.ts '{"httpMethod":"GET",...}'
 */
import { createServer } from 'node:http';

const event = process.argv[2];
if (!event) {
  console.error("usage: runtime-api-process.ts '<the event, as JSON>'");
  process.exit(2);
}
let invocations = 0;
const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/2018-06-01/runtime/invocation/next') {
    response.writeHead(200, {
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': `bench-${++invocations}`,
      'lambda-runtime-deadline-ms': String(Date.now() + 30_000),
    });
    response.end(event);
    return;
  }
  request.resume();
  request.on('end', () => {
    const answered =
      request.method === 'POST' && /^\/2018-06-01\/runtime\/invocation\/[^/]+\/response$/.test(request.url ?? '');
    response.writeHead(answered ? 202 : 404, { 'content-type': 'application/json' });
    response.end(answered ? '{"status":"OK"}' : '{"errorType":"NotFound"}');
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
