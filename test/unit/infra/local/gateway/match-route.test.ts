import { describe, expect, it } from 'vitest';
import { matchRoute } from '#infra/local/gateway/match-route';
import type { RouteSpec } from '#shared/api/route-spec';
import { routes } from '#shared/api/route-table';

const docs = '/api/v1/provisioning/tenants/acme/bots/bot-1/versions';
const routeOf = (method: string, path: string, table: typeof routes | RouteSpec[] = routes) => {
  const match = matchRoute(table, method, path);
  return match.kind === 'matched' ? { id: match.route.id, params: match.pathParameters } : undefined;
};

describe('matchRoute', () => {
  it('prefers a literal segment to a parameter, as API Gateway does (versions/current over versions/{version})', () => {
    expect(routeOf('GET', `${docs}/current`)?.id).toBe('getCurrentDocument');
    expect(routeOf('GET', `${docs}/7`)).toEqual({
      id: 'getDocumentVersion',
      params: { tenantId: 'acme', collection: 'bots', docId: 'bot-1', version: '7' },
    });
    expect(routeOf('POST', `${docs}/current`)?.id).toBe('replaceCurrentDocument');
    expect(routeOf('POST', `${docs}/7/restore`)?.id).toBe('restoreDocumentVersion');
    // Whatever the table's order.
    expect(routeOf('GET', `${docs}/current`, [...routes].reverse())?.id).toBe('getCurrentDocument');
  });

  it('picks the resource before the method: a method the literal resource lacks matches no route', () => {
    expect(routeOf('DELETE', `${docs}/current`)).toBeUndefined();
    expect(routeOf('PUT', `${docs}/7`)).toBeUndefined();
  });

  it('decodes parameters, and passes a malformed one raw', () => {
    expect(routeOf('GET', '/api/v1/provisioning/tenants/acme/bots/a%20b/versions')?.params.docId).toBe('a b');
    const match = matchRoute(routes, 'GET', '/api/v1/provisioning/tenants/acme/bots/a%E0/versions');
    expect(match.kind === 'matched' && [match.pathParameters.docId, match.malformed]).toEqual(['a%E0', true]);
  });

  it('matches no route for an empty parameter or a path of another length', () => {
    expect(routeOf('GET', '/api/v1/provisioning/tenants/acme/bots//versions')).toBeUndefined();
    expect(routeOf('GET', `${docs}/7/extra/segment`)).toBeUndefined();
  });
});
