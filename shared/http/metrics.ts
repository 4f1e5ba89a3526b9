/**
 * One Powertools Metrics instance per function: counts go out as EMF lines in the function's own
 * log, which CloudWatch turns into metrics without an API call. Outside Lambda (`npm start`, tests)
 * POWERTOOLS_METRICS_DISABLED=true keeps those lines off stdout.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { stageName } from '#shared/settings/stage-settings';
import type { ChainEvent } from './api-types.ts';
import { type AppMetric, METRICS_NAMESPACE } from './metric-names.ts';

/**
 * Created on the first count, not at import: constructing Powertools Metrics costs milliseconds of
 * init, and most invocations (and some whole environments) never count anything.
 */
let metrics: Metrics | undefined;

export function countMetric(name: AppMetric, count = 1): void {
  metrics ??= new Metrics({
    namespace: METRICS_NAMESPACE,
    // The same service name as the logger (POWERTOOLS_SERVICE_NAME in the deployed functions).
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'cxm-api',
    defaultDimensions: { stage: stageName() },
  });
  metrics.addMetric(name, MetricUnit.Count, count);
}

/**
 * Writes what this invocation counted. Most invocations count nothing, and Powertools warns on
 * every empty flush, so an empty one is skipped.
 */
export function publishMetrics(): void {
  if (metrics?.hasStoredMetrics()) metrics.publishStoredMetrics();
}

/**
 * The chain step that publishes the invocation's metrics when it ends, answered or failed.
 * Registered right after the log context, so its onError runs after mapError (middy unwinds
 * onError in reverse) and sees what the error mapping counted.
 *
 * @example middy(handler).use(logContext(route)).use(flushMetrics()).use(mapError(route))
 */
export function flushMetrics(): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return { after: publishMetrics, onError: publishMetrics };
}
