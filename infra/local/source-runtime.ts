/**
 * The `sources` runtime (the default: fast to start for development): the authorizer and every
 * route's handler module imported into this process from the TypeScript sources, as the deployed
 * functions import their bundles. The environment the handlers read is this process's own, set by
 * the local runtime (use-local-dynamo.ts and friends).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RECORDING_PROCESSOR, recordingArrivedPattern } from '#shared/recording-events';
import { AUTHORIZER_HANDLER, routes } from '#shared/routes';
import { recordingsBucket } from '#shared/store/recording-settings';
import { PROJECT_ROOT } from '../project-root.ts';
import type { FunctionRuntime } from './function-runtime.ts';
import type { AuthorizerHandler, ProxyHandler } from './local-gateway.ts';

async function importHandler<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(join(PROJECT_ROOT, entry)).href)) as { handler?: T };
  if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function`);
  return module.handler;
}

export async function startSourceRuntime(): Promise<FunctionRuntime> {
  const authorizer = await importHandler<AuthorizerHandler>(AUTHORIZER_HANDLER);
  const handlers = new Map<string, ProxyHandler>();
  for (const route of routes) handlers.set(route.id, await importHandler<ProxyHandler>(route.handler));
  // Imported with the first recording's event, not at start: most runs (and test files) never
  // upload one, and the processor brings the S3 and Transcribe clients and the audio reader.
  let processRecording: Promise<(event: unknown) => Promise<unknown>> | undefined;
  return {
    routes,
    authorizer,
    handlers,
    eventTargets: [{ name: RECORDING_PROCESSOR.id, patterns: [recordingArrivedPattern(recordingsBucket())], invoke: async (event) => (await (processRecording ??= importHandler(RECORDING_PROCESSOR.handler)))(event) }],
    description: `sources on node ${process.version}`,
    close: async () => undefined,
  };
}
