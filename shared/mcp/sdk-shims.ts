/**
 * The MCP SDK's runtime shims (`@modelcontextprotocol/server/_shims`) as the MCP function's bundle
 * has them: esbuild puts this module in place of the SDK's own (infra/cdk/constructs/route-bundling.ts).
 * The SDK's shims for Node give it an Ajv, with its formats, as the default validator of what
 * clients answer to a server's requests (elicitation). The bots server asks clients for nothing and
 * passes `NoClientAnswers` instead, yet every cold start would load and run Ajv's 160 KB for the
 * default. Source mode keeps the SDK's shims; both runtimes run the MCP tests.
 */
import process from 'node:process';
import type { jsonSchemaValidator } from '@modelcontextprotocol/server';

/**
 * A validator of client answers for a server that asks clients for nothing: asked for a
 * validator, it says so, where the SDK's would validate an answer no request of ours can get.
 *
 * @example new McpServer(info, { jsonSchemaValidator: new NoClientAnswers() })
 */
export class NoClientAnswers implements jsonSchemaValidator {
  getValidator(): never {
    throw new Error('this MCP server sends clients no requests (no elicitation), so it validates no client answer');
  }
}

export { NoClientAnswers as DefaultJsonSchemaValidator, process };
