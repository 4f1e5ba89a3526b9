/**
 * THE route table: every area's routes (`<area>-routes.ts`), in the order the OpenAPI document
 * lists them. CDK builds the REST API, the functions and their grants from it; the local gateway
 * matches requests with it; the OpenAPI document is generated from it with each area's docs
 * (shared/openapi/build-openapi-document.ts). Adding an endpoint: shared/README.md#adding-an-endpoint.
 */
import { conversationsRoutes } from './conversations-routes.ts';
import { mcpRoutes } from './mcp-routes.ts';
import { provisioningRoutes } from './provisioning-routes.ts';
import { reportingRoutes } from './reporting-routes.ts';
import type { RouteSpec } from './route-spec.ts';
import { vocRoutes } from './voc-routes.ts';
import { webhooksRoutes } from './webhooks-routes.ts';

export const routes = [
  ...conversationsRoutes,
  ...provisioningRoutes,
  ...mcpRoutes,
  ...reportingRoutes,
  ...vocRoutes,
  ...webhooksRoutes,
] as const satisfies readonly RouteSpec[];

/** A route's id: its function's name suffix, its log field, its OpenAPI operationId. */
export type RouteId = (typeof routes)[number]['id'];

/**
 * The route `id` names.
 *
 * @example routeById('addInternalNote').path // '/api/v1/cxm/tenants/{tenantId}/conversations/{conversationId}/internal-notes'
 */
export function routeById(id: RouteId): RouteSpec {
  const route = routes.find((r) => r.id === id);
  if (!route) throw new Error(`unknown route ${id}`);
  return route;
}

/**
 * The scope areas some route requires: the only areas a key may be issued for.
 *
 * @example scopeAreas() // ['cxm', 'mcp', 'provisioning', 'reporting', 'voc', 'webhooks']
 */
export function scopeAreas(): string[] {
  return [...new Set(routes.map((route) => route.scope.split(':')[0]!))].sort();
}

/**
 * The route's path template with `params` filled in, each percent-encoded.
 *
 * @example fillPath(routeById('getVocJobStatus'), { tenantId: 'acme', jobId: 'job 1' }) // '…/recording/job%201/status'
 */
export function fillPath(route: RouteSpec, params: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.id} needs path parameter ${name}`);
    return encodeURIComponent(value);
  });
}
