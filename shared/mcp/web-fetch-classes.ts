/**
 * The web `Headers`, `Request` and `Response` of the MCP function's bundle: esbuild puts these in
 * place of the globals in every module of that bundle, the MCP SDK's included
 * (infra/cdk/constructs/route-bundling.ts), so a cold start does not load Node's, which are
 * undici. @whatwg-node/node-fetch implements them on Node's own streams and buffers; nothing imports
 * this module in source mode, which keeps Node's.
 *
 * @example new Response(JSON.stringify({ ok: true }), { status: 200 }) // in the MCP bundle, this module's Response
 */
export { Headers, Request, Response } from '@whatwg-node/node-fetch';
