/**
 * The mcp area's operations in the OpenAPI document: their prose and examples, what a reader needs
 * beyond their route entries (mcp-routes.ts) and the schemas. Every example must validate against its
 * schema (test/contract/openapi-examples.test.ts).
 */

import type { mcpRoutes } from './mcp-routes.ts';
import { type AreaDocs, error, example } from './operation-doc.ts';

/**
 * The mcp area: its tag's description, and each operation's docs.
 *
 * @example mcpDocs.operations.mcpBots.description
 */
export const mcpDocs: AreaDocs<(typeof mcpRoutes)[number]['id']> = {
  description: 'The MCP server for bots: Streamable HTTP, stateless, JSON-RPC 2.0.',
  operations: {
    mcpBots: {
      description:
        'A stateless MCP server (Streamable HTTP, JSON-RPC 2.0) for both protocol eras, chosen by each request: 2026-07-28, whose ' +
        'requests carry their protocol version and client capabilities in `params._meta` (with `MCP-Protocol-Version`, `Mcp-Method` ' +
        'and, for `tools/call`, `Mcp-Name` headers that must agree with the body), and 2025-11-25 or 2025-06-18, which open with ' +
        '`initialize`. No session either way; send `Accept: application/json, text/event-stream` (or `application/json`); the answer ' +
        'is always JSON.\n\n' +
        "Tools: `list_bots` (argument `limit`, an integer 1 to 100, default 20) returns the tenant's `bots` collection ordered by id as " +
        '`structuredContent: {bots: [{id, ...data}]}`; `get_bot` (argument `id`) returns one bot as `structuredContent: {bot: {id, ...data}}`, ' +
        'or a tool error (`isError: true`) naming an id that has no bot. Each result also carries the same JSON as a text block. ' +
        'JSON-RPC ids are echoed with their exact type. A notification (no `id`) is answered 202 without a body. ' +
        'Faults answer 500 with only a `message`.\n\n' +
        '2026-07-28 answers: `server/discover`; `resultType` on every result; `ttlMs` (600000) and `cacheScope: private` on ' +
        '`tools/list` and `server/discover`; 400 with JSON-RPC -32020 when a header disagrees with the body, -32022 (with the supported ' +
        'versions) for a version it does not serve; 404 with -32601 for a method it does not serve (`subscriptions/listen` among them: ' +
        'it sends no notifications).\n\n' +
        'A request with an `Origin` header is refused 403 unless the stage allows that origin (DNS-rebinding protection, ' +
        'as the MCP transport requires); server-side callers send no Origin. The tool list never changes: `tools.listChanged` is false.',
      requestExamples: {
        callListBots: example('Call list_bots', {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_bots', arguments: { limit: 2 } },
        }),
        listTools: example('List the tools', { jsonrpc: '2.0', id: 'tools-1', method: 'tools/list' }),
        getBotModern: example(
          'Call get_bot in 2026-07-28 (headers MCP-Protocol-Version, Mcp-Method: tools/call, Mcp-Name: get_bot)',
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: {
              name: 'get_bot',
              arguments: { id: 'bot-billing' },
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          },
        ),
        notification: example('A notification', { jsonrpc: '2.0', method: 'notifications/initialized' }),
      },
      success: {
        200: {
          description: 'The JSON-RPC response: a `result`, or a JSON-RPC `error` (an unknown method, for example).',
          examples: {
            bots: example('list_bots result', {
              jsonrpc: '2.0',
              id: 1,
              result: {
                content: [
                  {
                    type: 'text',
                    text: '{"bots":[{"id":"bot-billing","name":"Billing helper"},{"id":"bot-returns","name":"Returns assistant"}]}',
                  },
                ],
                structuredContent: {
                  bots: [
                    { id: 'bot-billing', name: 'Billing helper' },
                    { id: 'bot-returns', name: 'Returns assistant' },
                  ],
                },
              },
            }),
            unknownMethod: example('Unknown method', {
              jsonrpc: '2.0',
              id: 'm-7',
              error: { code: -32601, message: 'Method not found' },
            }),
          },
        },
        202: { description: 'A notification was accepted; no body.', empty: true },
      },
      errorExamples: {
        400: {
          headerMismatch: example('2026-07-28: the Mcp-Method header disagrees with the body', {
            jsonrpc: '2.0',
            id: 2,
            error: {
              code: -32020,
              message:
                'Bad Request: the request headers and body disagree: the body names method tools/call but the Mcp-Method header names tools/list',
            },
            code: 'BadRequest',
            message:
              'Bad Request: the request headers and body disagree: the body names method tools/call but the Mcp-Method header names tools/list',
          }),
          parse: example('Malformed JSON', {
            jsonrpc: '2.0',
            id: null,
            error: { code: -32700, message: 'Parse error: Invalid JSON' },
            code: 'BadRequest',
            message: 'Parse error: Invalid JSON',
          }),
          path: example('A refused path', error('BadRequest', "'tenantId' must not contain '/' or '\\'.")),
        },
        404: {
          methodNotFound: example('A 2026-07-28 request for a method this server does not serve', {
            jsonrpc: '2.0',
            id: 4,
            error: { code: -32601, message: 'Method not found' },
            code: 'NotFound',
            message: 'Method not found',
          }),
        },
        405: {
          notAllowed: example('Not POST', {
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Method not allowed: this stateless MCP endpoint takes POST only.' },
            id: null,
          }),
        },
      },
    },
  },
};
