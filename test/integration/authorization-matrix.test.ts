/**
 * The authorization matrix (the contract's Authentication; scope grants, error bodies, API keys),
 * generated from the route table: every route, with every method it declares, against every kind of
 * credential. The 401 and 403 bodies are exact; a permitted request answers the route's own success
 * and leaves its effect, a refused one leaves none. A route that writes a webhook endpoint needs,
 * besides its own scope, the read scope of the endpoint's events: a key of the route's scope alone is
 * refused, naming the event. A route without a fixture fails the coverage guard, so no route ships
 * without these checks.
 *
 * @group sources bundles
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_DENIED_MESSAGE, UNAUTHENTICATED_MESSAGE } from '#shared/api/api-error';
import type { RouteSpec } from '#shared/api/route-spec';
import { routes, scopeAreas } from '#shared/api/route-table';
import { validatorFor } from '#shared/http/validator-for';
import {
  arrangeAll,
  fixtureCall,
  fixtureOf,
  fixtureScope,
  routeFixtures,
  routeMethodPairs,
  routeMethods,
} from '#test/support/route-fixtures';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

let api: TestApi;
const tenant = uniqueTenant('matrix');
const otherTenant = uniqueTenant('matrix-other');
const everyArea = scopeAreas().map((area) => `${area}:*`);

/**
 * The scope grant rule written out independently of shared/auth: `a:r.x` is granted by `a:r.x`,
 * `a:r.*`, `a:x` and `a:*`. The resource may hold dots (a collection name), so the action follows
 * the last dot.
 */
function grantingForms(required: string): string[] {
  const [area, rest] = required.split(/:(.*)/s) as [string, string];
  const resource = rest.slice(0, rest.lastIndexOf('.'));
  const action = rest.slice(rest.lastIndexOf('.') + 1);
  return [`${area}:${resource}.${action}`, `${area}:${resource}.*`, `${area}:${action}`, `${area}:*`];
}

/**
 * Every scope that grants some route, and the near misses of this one (the other action, another
 * resource): a key holding all of them except the four forms lacks exactly this route's scope.
 */
function lackingScopes(route: RouteSpec): string[] {
  const required = fixtureScope(route);
  const [area, rest] = required.split(/:(.*)/s) as [string, string];
  const resource = rest.slice(0, rest.lastIndexOf('.'));
  const action = rest.slice(rest.lastIndexOf('.') + 1);
  const otherActions = ['read', 'write'].filter((candidate) => candidate !== action);
  const nearMisses = [
    ...otherActions.flatMap((other) => [`${area}:${resource}.${other}`, `${area}:${other}`]),
    `${area}:other-${resource}.${action}`,
    `${area}:other-${resource}.*`,
  ];
  const universe = new Set([...routes.flatMap((r) => grantingForms(fixtureScope(r))), ...nearMisses]);
  for (const form of grantingForms(required)) universe.delete(form);
  return [...universe].sort();
}

/** The scopes of a key granted `form` of the route's scope, with the read scope of its endpoint's event. */
function grantingKeyScopes(route: RouteSpec, form: string): string[] {
  const subscribes = fixtureOf(route).subscribes;
  return subscribes ? [form, subscribes.scope] : [form];
}

const keys = {
  /** By their scopes, space-separated. */
  granting: new Map<string, string>(),
  lacking: new Map<string, string>(),
  revoked: '',
  expired: '',
  foreign: '',
  scopeless: '',
};

beforeAll(async () => {
  api = await startTestApi({ authCacheTtlSeconds: 0 });
  await arrangeAll(api, tenant);
  const scopeSets = routes.flatMap((route) => [
    ...grantingForms(fixtureScope(route)).map((form) => grantingKeyScopes(route, form)),
    ...grantingForms(fixtureScope(route)).map((form) => [form]),
  ]);
  for (const scopes of new Set(scopeSets.map((set) => set.join(' '))))
    keys.granting.set(scopes, (await api.createKey([tenant], scopes.split(' '))).key);
  for (const route of routes) keys.lacking.set(route.id, (await api.createKey([tenant], lackingScopes(route))).key);
  const revoked = await api.createKey([tenant], everyArea);
  await api.keys.revoke(revoked.keyId, new Date());
  keys.revoked = revoked.key;
  keys.expired = (
    await api.createKey([tenant], everyArea, { expiresAt: new Date(Date.now() - 1000).toISOString() })
  ).key;
  keys.foreign = (await api.createKey([otherTenant], everyArea)).key;
  keys.scopeless = (await api.createKey([tenant], [])).key;
});
afterAll(() => api.close());

describe('coverage guard', () => {
  it('every route of the table has a fixture, and every fixture a route', () => {
    expect(Object.keys(routeFixtures).sort()).toEqual(routes.map((route) => route.id).sort());
  });

  it('every fixture says what a permitted request answers for each method its route declares', () => {
    for (const route of routes) {
      expect(Object.keys(fixtureOf(route).permitted).sort(), route.id).toEqual(routeMethods(route).sort());
    }
  });

  it('the lacking key of each route still holds a scope of every other route', () => {
    for (const route of routes) {
      const lacking = lackingScopes(route);
      expect(
        lacking.filter((scope) => grantingForms(fixtureScope(route)).includes(scope)),
        route.id,
      ).toEqual([]);
      for (const other of routes.filter((candidate) => fixtureScope(candidate) !== fixtureScope(route))) {
        expect(
          grantingForms(fixtureScope(other)).some((form) => lacking.includes(form)),
          `${route.id} vs ${other.id}`,
        ).toBe(true);
      }
    }
  });
});

type Outcome = 'unauthenticated' | 'denied' | 'permitted';

interface MatrixCase {
  name: string;
  outcome: Outcome;
  /** A denial's message, when it is not the fixed one. */
  message?: string;
  /** The Authorization header to send, or undefined for none. */
  authorization(route: RouteSpec): string | undefined;
}

const grantingKey = (route: RouteSpec, form: string) => keys.granting.get(grantingKeyScopes(route, form).join(' '))!;
const anyGrantingKey = (route: RouteSpec) => grantingKey(route, grantingForms(fixtureScope(route))[3]!);

/** A key of the route's scope without the read scope of its endpoint's event: refused, naming both. */
function subscriptionCases(route: RouteSpec): MatrixCase[] {
  const subscribes = fixtureOf(route).subscribes;
  if (!subscribes) return [];
  const scope = grantingForms(fixtureScope(route))[3]!;
  return [
    {
      name: `a key granted ${scope} but not ${subscribes.scope}, which reads its endpoint's ${subscribes.event}`,
      outcome: 'denied',
      message: `The API key does not allow subscribing to '${subscribes.event}': it needs the scope '${subscribes.scope}', which reads what the event carries.`,
      authorization: () => `Bearer ${keys.granting.get(scope)!}`,
    },
  ];
}

function matrixCases(route: RouteSpec): MatrixCase[] {
  return [
    { name: 'no Authorization header', outcome: 'unauthenticated', authorization: () => undefined },
    {
      name: 'a wrong scheme (Basic with a valid key)',
      outcome: 'unauthenticated',
      authorization: (r) => `Basic ${anyGrantingKey(r)}`,
    },
    {
      name: 'a malformed token (a valid key cut short)',
      outcome: 'unauthenticated',
      authorization: (r) => `Bearer ${anyGrantingKey(r).slice(0, -1)}`,
    },
    {
      name: 'an unknown key of valid form',
      outcome: 'unauthenticated',
      authorization: () =>
        `Bearer cxm_${randomBytes(6).toString('hex')}_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'A').slice(0, 40)}`,
    },
    { name: 'a revoked key', outcome: 'unauthenticated', authorization: () => `Bearer ${keys.revoked}` },
    { name: 'an expired key', outcome: 'unauthenticated', authorization: () => `Bearer ${keys.expired}` },
    { name: "another tenant's key with every scope", outcome: 'denied', authorization: () => `Bearer ${keys.foreign}` },
    {
      name: 'a key with every scope but this one',
      outcome: 'denied',
      authorization: (r) => `Bearer ${keys.lacking.get(r.id)!}`,
    },
    { name: 'a key with no scope at all', outcome: 'denied', authorization: () => `Bearer ${keys.scopeless}` },
    ...subscriptionCases(route),
    ...grantingForms(fixtureScope(route)).map(
      (scope): MatrixCase => ({
        name: `a key granted ${grantingKeyScopes(route, scope).join(' and ')}`,
        outcome: 'permitted',
        authorization: (r) => `Bearer ${grantingKey(r, scope)}`,
      }),
    ),
  ];
}

let caseCounter = 0;

for (const { route, method } of routeMethodPairs()) {
  const fixture = fixtureOf(route);

  describe(`${route.id}: ${method} ${route.path}`, () => {
    for (const matrixCase of matrixCases(route)) {
      it(`${matrixCase.name} -> ${matrixCase.outcome}`, async () => {
        const caseId = `c${++caseCounter}`;
        const call = await fixtureCall(api, route, tenant, method, caseId);
        const authorization = matrixCase.authorization(route);
        const response = await api.call(call.method, call.path, undefined, {
          body: call.body,
          headers: { ...call.headers, ...(authorization === undefined ? {} : { Authorization: authorization }) },
        });

        if (matrixCase.outcome === 'unauthenticated') {
          expect(response.status).toBe(401);
          expect(response.json).toEqual({ code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE });
        } else if (matrixCase.outcome === 'denied') {
          expect(response.status).toBe(403);
          expect(response.json).toEqual({
            code: 'PermissionDenied',
            message: matrixCase.message ?? PERMISSION_DENIED_MESSAGE,
          });
        } else {
          const permitted = fixture.permitted[method]!;
          expect(response.status, response.text).toBe(permitted.status);
          const validate = validatorFor(permitted.schema);
          expect(validate(response.json), JSON.stringify(validate.errors)).toBe(true);
        }
        if (fixture.wrote) expect(await fixture.wrote(api, tenant, caseId)).toBe(matrixCase.outcome === 'permitted');
      });
    }
  });
}
