/** Imports the authorizer and every route's handler module, as the deployed functions do. */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AUTHORIZER_HANDLER, routes } from '#shared/routes';
import { PROJECT_ROOT } from '../project-root.ts';
import type { AuthorizerHandler, ProxyHandler } from './local-gateway.ts';


async function importHandler<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(join(PROJECT_ROOT, entry)).href)) as { handler?: T };
  if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function`);
  return module.handler;
}

export async function loadHandlers(): Promise<{ authorizer: AuthorizerHandler; handlers: Map<string, ProxyHandler> }> {
  const authorizer = await importHandler<AuthorizerHandler>(AUTHORIZER_HANDLER);
  const handlers = new Map<string, ProxyHandler>();
  for (const route of routes) handlers.set(route.id, await importHandler<ProxyHandler>(route.handler));
  return { authorizer, handlers };
}
