/**
 * The scope grant rule (functions/README.md). Scopes read `area:resource.action`; a required
 * `a:r.x` is granted by `a:r.x`, `a:r.*`, `a:x` or `a:*` (the spec's four note scopes,
 * generalised). The resource may itself hold dots (a collection name), so the action is what
 * follows the last dot.
 */
export function grantingScopes(required: string): string[] {
  const colon = required.indexOf(':');
  if (colon <= 0) throw new Error(`malformed scope ${required}`);
  const area = required.slice(0, colon);
  const rest = required.slice(colon + 1);
  const dot = rest.lastIndexOf('.');
  if (dot <= 0) return [required, `${area}:*`];
  const resource = rest.slice(0, dot);
  const action = rest.slice(dot + 1);
  return [required, `${area}:${resource}.*`, `${area}:${action}`, `${area}:*`];
}

export function isScopeGranted(granted: readonly string[], required: string): boolean {
  return grantingScopes(required).some((scope) => granted.includes(scope));
}

/**
 * A route's scope check, built once per function: a fixed scope's granting forms are worked out
 * here rather than on every request; a templated one (`provisioning:{collection}.read`) is filled
 * from each request's path, its template split here.
 */
export function scopeRule(
  template: string,
): (granted: readonly string[], params: Record<string, string | undefined>) => boolean {
  if (!template.includes('{')) {
    const granting = grantingScopes(template);
    return (granted) => granting.some((scope) => granted.includes(scope));
  }
  const fill = scopeFiller(template);
  return (granted, params) => isScopeGranted(granted, fill(params));
}

/** Fills `{param}` placeholders of a route's scope template from the request's path. */
export function resolveScope(template: string, params: Record<string, string | undefined>): string {
  return scopeFiller(template)(params);
}

/** `template` split once into its text and its placeholders (odd positions), for filling per request. */
function scopeFiller(template: string): (params: Record<string, string | undefined>) => string {
  const parts = template.split(/\{(\w+)\}/);
  return (params) => {
    let scope = parts[0]!;
    for (let i = 1; i < parts.length; i += 2) {
      const value = params[parts[i]!];
      if (value === undefined) throw new Error(`scope ${template} needs path parameter ${parts[i]}`);
      scope += value + parts[i + 1]!;
    }
    return scope;
  };
}

const ACTIONS = ['read', 'write', '*'];

/**
 * Why a scope cannot be issued, or undefined when it can. Only areas that some route requires are
 * accepted, so a typo is caught when the key is created rather than when a request is refused.
 */
export function describeInvalidScope(scope: string, knownAreas: readonly string[]): string | undefined {
  const match = /^([a-z]+):(.+)$/.exec(scope);
  if (!match) return `scope '${scope}' must look like area:resource.action, area:action or area:*`;
  const [, area = '', rest = ''] = match;
  if (!knownAreas.includes(area))
    return `scope '${scope}' names unknown area '${area}' (known: ${knownAreas.join(', ')})`;
  const dot = rest.lastIndexOf('.');
  const action = dot < 0 ? rest : rest.slice(dot + 1);
  const resource = dot < 0 ? undefined : rest.slice(0, dot);
  if (!ACTIONS.includes(action)) return `scope '${scope}' must end in read, write or *`;
  if (resource !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(resource)) {
    return `scope '${scope}' has a malformed resource '${resource}'`;
  }
  return undefined;
}
