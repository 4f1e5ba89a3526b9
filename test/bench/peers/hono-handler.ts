/**
 * Peer (b): the baseline's GetItem as a route of a Hono app, served through Hono's Lambda adapter
 * (`hono/aws-lambda`), which routes on the event's path rather than on API Gateway's parameters.
 */
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { readBenchDocument } from '../read-bench-document.ts';
import { PEER_DOCUMENT_PATH } from './peer-route.ts';

const app = new Hono();

app.get(PEER_DOCUMENT_PATH, async (c) => {
  const data = await readBenchDocument(c.req.param('tenantId'), c.req.param('collection'), c.req.param('docId'));
  return data === undefined ? c.body(null, 404) : c.body(data, 200);
});

export const handler = handle(app);
