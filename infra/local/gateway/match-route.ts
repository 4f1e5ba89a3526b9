/**
 * Route matching as API Gateway does it: the resource first, then the method. Literal segments
 * compare exactly on the raw path, a `{param}` takes one non-empty segment, and where two
 * resources match (`versions/current` and `versions/{version}`) the one with a literal segment at
 * the first place they differ wins, whatever methods it has. Parameters reach the function URL-decoded.
 */
import type { RouteSpec } from '#shared/api/route-spec';

export type RouteMatch =
  | {
      kind: 'matched';
      route: RouteSpec;
      pathParameters: Record<string, string>;
      /** True when a parameter is not valid percent-encoding (it is then passed raw). */
      malformed: boolean;
    }
  | { kind: 'no-route' };

const paramName = (part: string) => /^\{(\w+)\}$/.exec(part)?.[1];

/** Whether a template's segments take the path's, literal for literal and one for each parameter. */
const fits = (template: readonly string[], segments: readonly string[]) =>
  template.length === segments.length &&
  template.every((part, i) => (paramName(part) === undefined ? part === segments[i] : segments[i] !== ''));

/** Negative when template `a` is the more specific: a literal where `b` has a parameter, first. */
function bySpecificity(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const aParam = paramName(a[i]!) !== undefined;
    const bParam = paramName(b[i]!) !== undefined;
    if (aParam !== bParam) return aParam ? 1 : -1;
  }
  return 0;
}

/**
 * The route that answers `method` on `rawPath`, with its parameters.
 *
 * @example matchRoute(routes, 'GET', '/api/v1/provisioning/tenants/t/bots/b/versions/current') // getCurrentDocument
 */
export function matchRoute(routes: readonly RouteSpec[], method: string, rawPath: string): RouteMatch {
  const segments = rawPath.split('/');
  const resources = [...new Set(routes.map((route) => route.path))]
    .map((path) => path.split('/'))
    .filter((template) => fits(template, segments))
    .sort(bySpecificity);
  const resource = resources[0];
  if (!resource) return { kind: 'no-route' };
  const path = resource.join('/');
  const route = routes.find(
    (candidate) =>
      candidate.path === path &&
      (candidate.method === method || candidate.otherMethods?.includes(method as RouteSpec['method'])),
  );
  if (!route) return { kind: 'no-route' };
  const pathParameters: Record<string, string> = {};
  let malformed = false;
  resource.forEach((part, i) => {
    const name = paramName(part);
    if (name === undefined) return;
    const raw = segments[i]!;
    try {
      pathParameters[name] = decodeURIComponent(raw);
    } catch {
      pathParameters[name] = raw;
      malformed = true;
    }
  });
  return { kind: 'matched', route, pathParameters, malformed };
}
