/**
 * Peer (c): the baseline's GetItem as a route of an Express app, served through serverless-http,
 * which turns the event into a Node request and the app's response back into a Lambda result.
 */
import express from 'express';
import serverless from 'serverless-http';
import { readBenchDocument } from '../read-bench-document.ts';
import { PEER_DOCUMENT_PATH } from './peer-route.ts';

const app = express();

app.get(PEER_DOCUMENT_PATH, async (req, res) => {
  const data = await readBenchDocument(req.params.tenantId, req.params.collection, req.params.docId);
  if (data === undefined) res.status(404).end();
  else res.status(200).type('application/json').send(data);
});

export const handler = serverless(app);
