/**
 * One bundle per reporting backend: a reporting list's bundle has its stage's backend compiled in
 * (esbuild `define` of `process.env.CXM_REPORTING_BACKEND`), so esbuild drops the other backend's
 * branch of shared/store/function-stores.ts (`reportingIndex`), and with it that backend's modules. A
 * DynamoDB stage's list then carries no OpenSearch client (264 KB) to parse at every cold start.
 * The environment variable stays set too: it is what source mode and the indexer read.
 */

import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RouteSpec } from '#shared/api/route-spec';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import type { StageConfig } from '../stage/config.ts';

export type ReportingBackend = StageConfig['reportingBackend'];

export function reportingBackendDefine(backend: ReportingBackend): Record<string, string> {
  return { [`process.env.${FUNCTION_ENV.reportingBackend}`]: JSON.stringify(backend) };
}

/**
 * What a route's bundle takes beyond the common bundling (api-function.ts): a reporting list has
 * its stage's backend compiled in; any other route, nothing.
 *
 * @example routeBundling(routeById('listAssistantConversations'), 'opensearch') // { define: { 'process.env.CXM_REPORTING_BACKEND': '"opensearch"' } }
 */
export function routeBundling(
  route: Pick<RouteSpec, 'reportingIndex'>,
  backend: ReportingBackend,
): Partial<BundlingOptions> | undefined {
  return route.reportingIndex ? { define: reportingBackendDefine(backend) } : undefined;
}
