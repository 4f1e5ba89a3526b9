/**
 * The peers: the baseline's handler (one GetItem through the same document client)
 * written with a popular Lambda framework each, so that every cold-start run re-measures how our
 * functions stand against them. Their bundles are built with the stack's esbuild settings and
 * imported in the same interleaved rounds as ours (test/bench/measure-cold-start.ts).
 */
export interface PeerHandler {
  /** How the report names the peer. */
  name: string;
  /** Entry module relative to the project root. */
  entry: string;
  /** The framework packages it adds to the baseline (pinned in package.json), for the report. */
  packages: readonly string[];
}

export const PEER_HANDLERS: readonly PeerHandler[] = [
  {
    name: 'middy + Powertools Logger',
    entry: 'test/bench/peers/middy-powertools-handler.ts',
    packages: ['@middy/core', '@aws-lambda-powertools/logger'],
  },
  { name: 'Hono (hono/aws-lambda)', entry: 'test/bench/peers/hono-handler.ts', packages: ['hono'] },
  {
    name: 'Express + serverless-http',
    entry: 'test/bench/peers/express-handler.ts',
    packages: ['express', 'serverless-http'],
  },
];
