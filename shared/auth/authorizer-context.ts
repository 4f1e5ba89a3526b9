/**
 * What the authorizer tells the functions about the caller. API Gateway context values must be
 * strings, numbers or booleans, so lists travel space-separated (tenant ids and scopes hold no
 * white space).
 */
export interface Caller {
  keyId: string;
  tenants: string[];
  scopes: string[];
}

export type AuthorizerContext = Record<'keyId' | 'tenants' | 'scopes', string>;

export function encodeCaller(caller: Caller): AuthorizerContext {
  return { keyId: caller.keyId, tenants: caller.tenants.join(' '), scopes: caller.scopes.join(' ') };
}

/** Undefined when the context is missing or incomplete: the chain then fails closed. */
export function decodeCaller(context: unknown): Caller | undefined {
  if (!context || typeof context !== 'object') return undefined;
  const { keyId, tenants, scopes } = context as Record<string, unknown>;
  if (typeof keyId !== 'string' || typeof tenants !== 'string' || typeof scopes !== 'string') return undefined;
  if (keyId === '' || tenants === '') return undefined;
  return { keyId, tenants: tenants.split(' '), scopes: scopes === '' ? [] : scopes.split(' ') };
}
