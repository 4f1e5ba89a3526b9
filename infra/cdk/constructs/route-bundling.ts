/**
 * What a route's bundle takes beyond the common bundling (api-function.ts), decided by the route
 * table:
 *
 * - A reporting list has its stage's backend compiled in (esbuild `define` of
 *   `process.env.CXM_REPORTING_BACKEND`), so esbuild drops the other backend's branch of
 *   shared/store/function-stores.ts (`reportingIndex`), and with it that backend's modules. A
 *   DynamoDB stage's list then carries no OpenSearch client (264 KB) to parse at every cold start.
 *   The environment variable stays set too: it is what source mode and the indexer read.
 * - A route served through the MCP SDK (`bundlesMcpSdk`) has two modules of ours in place of what
 *   would load at its cold start without use:
 *   - web `Request` and `Response` from shared/mcp/web-fetch-classes.ts (esbuild `inject`): Node's
 *     own are undici, which a first `Headers` loads whole, its HTTP client included, the largest
 *     single part of such a cold request (test/performance.md);
 *   - the SDK's runtime shims from shared/mcp/sdk-shims.ts (esbuild `alias`): the SDK's own for
 *     Node load Ajv for a default validator the server does not use.
 *
 *   Source mode keeps Node's classes and the SDK's shims; both runtimes run the same contract tests.
 */

import type { RouteSpec } from '#shared/api/route-spec';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import type { StageConfig } from '../stage/config.ts';
import type { FunctionBundling } from './function-bundles.ts';

export type ReportingBackend = StageConfig['reportingBackend'];

/** The module whose exports stand in for the global `Headers`, `Request` and `Response` (relative to the project root). */
export const WEB_FETCH_CLASSES_MODULE = 'shared/mcp/web-fetch-classes.ts';
/** The MCP SDK's runtime shims, as its packages import them, and the module of ours that stands in for them. */
export const MCP_SDK_SHIMS_ALIAS = { '@modelcontextprotocol/server/_shims': './shared/mcp/sdk-shims.ts' } as const;

export function reportingBackendDefine(backend: ReportingBackend): Record<string, string> {
  return { [`process.env.${FUNCTION_ENV.reportingBackend}`]: JSON.stringify(backend) };
}

/**
 * What a route's bundle takes beyond the common bundling: a reporting list its stage's backend,
 * MCP its own fetch classes and SDK shims; any other route, nothing.
 *
 * @example routeBundling(routeById('listAssistantConversations'), 'opensearch') // { define: { 'process.env.CXM_REPORTING_BACKEND': '"opensearch"' } }
 * @example routeBundling(routeById('mcpBots'), 'dynamodb') // { inject: ['shared/mcp/web-fetch-classes.ts'], alias: { '@modelcontextprotocol/server/_shims': './shared/mcp/sdk-shims.ts' } }
 */
export function routeBundling(
  route: Pick<RouteSpec, 'reportingIndex' | 'bundlesMcpSdk'>,
  backend: ReportingBackend,
): Partial<FunctionBundling> | undefined {
  const bundling: Partial<FunctionBundling> = {
    ...(route.reportingIndex && { define: reportingBackendDefine(backend) }),
    ...(route.bundlesMcpSdk && { inject: [WEB_FETCH_CLASSES_MODULE], alias: { ...MCP_SDK_SHIMS_ALIAS } }),
  };
  return Object.keys(bundling).length > 0 ? bundling : undefined;
}
