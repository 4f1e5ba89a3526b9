/**
 * Route matching as API Gateway does it: literal segments compare exactly on the raw path,
 * a `{param}` takes one non-empty segment, and parameters reach the function URL-decoded.
 */
import type { RouteSpec } from '#shared/routes';

export type RouteMatch =
  | {
      kind: 'matched';
      route: RouteSpec;
      pathParameters: Record<string, string>;
      /** True when a parameter is not valid percent-encoding (it is then passed raw). */
      malformed: boolean;
    }
  | { kind: 'no-route' };

export function matchRoute(routes: readonly RouteSpec[], method: string, rawPath: string): RouteMatch {
  const segments = rawPath.split('/');
  for (const route of routes) {
    if (route.method !== method && !route.otherMethods?.includes(method as RouteSpec['method'])) continue;
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let matched = true;
    let malformed = false;
    for (let i = 0; i < template.length && matched; i++) {
      const part = template[i]!;
      const raw = segments[i]!;
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) {
        matched = part === raw;
      } else if (raw === '') {
        matched = false;
      } else {
        try {
          params[name] = decodeURIComponent(raw);
        } catch {
          params[name] = raw;
          malformed = true;
        }
      }
    }
    if (matched) return { kind: 'matched', route, pathParameters: params, malformed };
  }
  return { kind: 'no-route' };
}
