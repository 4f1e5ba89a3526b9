/**
 * The sources runtime serves every function's invocations concurrently in one process, which a
 * Lambda execution environment does only on Lambda Managed Instances. For those, Lambda's runtime
 * sets AWS_LAMBDA_MAX_CONCURRENCY and runs each invocation inside its InvokeStore (an
 * AsyncLocalStorage), and Powertools' Logger and Metrics then keep their per-request keys and
 * metrics in that invocation's store instead of on the shared module instance. Without it, a log
 * line could carry another concurrent request's tenant or key id (what appendKeys set last), and a
 * metric could be flushed with another request's. This does what that runtime does.
 *
 * The process has one InvokeStore, made by whoever asks first, and the AWS SDK asks on every
 * request (for the X-Ray trace id): a process that will serve the sources runtime must call
 * `prepareInvocationStore` before its first SDK call, or the SDK's single-context store wins.
 */
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import { MAX_CONCURRENCY_ENV } from '#shared/http/request-logger';

export type RunInvocation = <T>(requestId: string, invocation: () => T) => T;

/**
 * Makes this process's InvokeStore the per-invocation kind. Harmless on its own: Powertools uses
 * it only once AWS_LAMBDA_MAX_CONCURRENCY is set (invocationScope), and the SDK reads no context
 * from it outside an invocation.
 */
export function prepareInvocationStore(): Promise<InvokeStoreBase> {
  return InvokeStore.getInstanceAsync(true);
}

/** Whether a context set by an inner run is gone once it returns: true of an AsyncLocalStorage only. */
function keepsContextsApart(store: InvokeStoreBase): boolean {
  const probe = Symbol('cxm.invocation-scope.probe');
  return store.run({ [probe]: 'outer' }, () => {
    store.run({ [probe]: 'inner' }, () => undefined);
    return store.get(probe) === 'outer';
  });
}

/**
 * Turns Powertools to per-invocation stores for this whole process and returns how to run one
 * invocation in its own. Every log or metric call of a function must then happen inside one: call
 * this after the handler modules have been imported (an import that logs runs outside any).
 */
export async function invocationScope(): Promise<RunInvocation> {
  const store = await prepareInvocationStore();
  if (!keepsContextsApart(store)) {
    throw new Error(
      'this process made its AWS Lambda InvokeStore single-context before the sources runtime started (an AWS SDK call came first): call prepareInvocationStore() before any SDK call, or concurrent requests would share log keys',
    );
  }
  // Any value: Powertools only asks whether it is set. Lambda sets the environment's limit.
  process.env[MAX_CONCURRENCY_ENV] ??= '1000';
  const requestIdKey = InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID;
  return (requestId, invocation) => store.run({ [requestIdKey]: requestId }, invocation);
}
