/**
 * An HTTP endpoint that answers every DynamoDB request with success at once (`{}`: no unprocessed
 * items, no cancellation), and counts them. The import bench points the real `cxm import` at it
 * to measure the CLI's own memory over a file of half a million rows: the same requests as to
 * DynamoDB, built, signed, sent and answered, in the time the CLI needs rather than the hour
 * DynamoDB Local's transactions would take.
 */
import { createServer } from 'node:http';

export interface AcknowledgingDynamo {
  url: string;
  /** Requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startAcknowledgingDynamo(): Promise<AcknowledgingDynamo> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': 2 });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('the acknowledging endpoint has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
