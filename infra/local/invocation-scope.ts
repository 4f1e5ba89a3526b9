/**
 * The sources runtime serves every function's invocations concurrently in one process, which a
 * Lambda execution environment does only on Lambda Managed Instances. For those, Lambda's runtime
 * sets AWS_LAMBDA_MAX_CONCURRENCY and runs each invocation inside its InvokeStore (an
 * AsyncLocalStorage), and Powertools' Logger and Metrics then keep their per-request keys and
 * metrics in that invocation's store instead of on the shared module instance. Without it, a log
 * line could carry another concurrent request's tenant or key id (what appendKeys set last), and a
 * metric could be flushed with another request's. This does what that runtime does.
 */
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';

export type RunInvocation = <T>(requestId: string, invocation: () => T) => T;

/**
 * Turns Powertools to per-invocation stores for this whole process and returns how to run one
 * invocation in its own. Every log or metric call of a function must then happen inside one: call
 * this after the handler modules have been imported (an import that logs runs outside any).
 */
export async function invocationScope(): Promise<RunInvocation> {
  // Any value: Powertools only asks whether it is set. Lambda sets the environment's limit.
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';
  const store = await InvokeStore.getInstanceAsync(true);
  const requestIdKey = InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID;
  return (requestId, invocation) => store.run({ [requestIdKey]: requestId }, invocation);
}
