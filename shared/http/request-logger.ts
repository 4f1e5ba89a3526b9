/**
 * A Powertools Logger whose request context costs nothing until the request writes a line.
 *
 * Powertools' own middleware (`injectLambdaContext`) sets the Lambda context and the request's keys
 * on every request, and clears them after it, through its per-invocation attribute store: a deep
 * merge and several environment reads per key, on every request. Most requests of this API write
 * no line at all (the chain logs a fault, not a success), so the request logger only notes the
 * context and the keys when a request begins, and hands them to Powertools when the request's
 * first line is written. A line carries exactly what it would carry with the middleware: the
 * Lambda context (cold start included), the keys appended so far, and none of another request's.
 * Two things of the middleware it does not do: log the event (POWERTOOLS_LOGGER_LOG_EVENT would
 * put the caller's key in the log) and draw the debug sample again for each request (this API
 * sets no POWERTOOLS_LOGGER_SAMPLE_RATE).
 */

import type { InvokeStoreBase } from '@aws/lambda-invoke-store';
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import type { Context } from 'aws-lambda';

/**
 * Set by Lambda where one environment serves invocations concurrently (Managed Instances), and by
 * the sources runtime: Powertools then keeps its state per invocation, in Lambda's InvokeStore.
 */
export const MAX_CONCURRENCY_ENV = 'AWS_LAMBDA_MAX_CONCURRENCY';

/** One request's context, until its first line. */
interface RequestLog {
  context: Context;
  /** Whether this request is the environment's first, taken when it began, as Powertools takes it. */
  coldStart: boolean;
  keys: LogAttributes;
  /** Whether a line was written, so Powertools holds the keys and must drop them when it ends. */
  written: boolean;
}

const REQUEST_LOG = Symbol('cxm.logger.request');

/** The InvokeStore that keeps concurrent invocations apart (MAX_CONCURRENCY_ENV is set). */
function invocationStore(): InvokeStoreBase {
  const store = (globalThis as { awslambda?: { InvokeStore?: InvokeStoreBase } }).awslambda?.InvokeStore;
  if (!store) throw new Error(`${MAX_CONCURRENCY_ENV} is set but no InvokeStore keeps the invocations apart`);
  return store;
}

/**
 * @example
 * const logger = new RequestLogger({ serviceName: 'cxm-api' });
 * logger.beginRequest(context, { requestId, route: 'addInternalNote' });
 * logger.appendKeys({ tenantId }); // noted, not yet handed to Powertools
 * logger.error('request failed'); // carries the context, requestId, route and tenantId
 * logger.endRequest(); // the next request's lines carry none of them
 */
export class RequestLogger extends Logger {
  /** The request under way where invocations run one at a time. */
  #sequential: RequestLog | undefined;
  /**
   * Whether invocations run concurrently, read when a request begins: one environment read a
   * request, where Powertools reads it at every access of its stores.
   */
  #concurrent = false;

  /** Notes the request's Lambda context and first keys; ends what an earlier request left. */
  beginRequest(context: Context, keys: LogAttributes): void {
    this.#concurrent = process.env[MAX_CONCURRENCY_ENV] !== undefined;
    this.endRequest();
    this.#set({ context, coldStart: this.getColdStart(), keys: { ...keys }, written: false });
  }

  /** Within a request, keys wait for its first line; outside one, Powertools' own. */
  override appendKeys(attributes: LogAttributes): void {
    const request = this.#get();
    if (request && !request.written) Object.assign(request.keys, attributes);
    else super.appendKeys(attributes);
  }

  /** Drops the request's keys: those Powertools holds once a line was written, or the noted ones. */
  endRequest(): void {
    const request = this.#get();
    if (!request) return;
    if (request.written) this.resetKeys();
    this.#set(undefined);
  }

  protected override createAndPopulateLogItem(
    logLevel: number,
    input: LogItemMessage,
    extraInput: LogItemExtraInput,
  ): LogItem {
    const request = this.#get();
    if (request && !request.written) {
      request.written = true;
      // addContext asks getColdStart, which answers true once: give it this request's answer.
      this.coldStart = request.coldStart;
      this.addContext(request.context);
      super.appendKeys(request.keys);
    }
    return super.createAndPopulateLogItem(logLevel, input, extraInput);
  }

  #get(): RequestLog | undefined {
    // Powertools' constructor may write a line before this class's fields exist.
    if (!(#sequential in this)) return undefined;
    return this.#concurrent ? (invocationStore().get(REQUEST_LOG) as RequestLog | undefined) : this.#sequential;
  }

  #set(request: RequestLog | undefined): void {
    if (this.#concurrent) invocationStore().set(REQUEST_LOG, request);
    else this.#sequential = request;
  }
}
