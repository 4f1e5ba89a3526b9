/**
 * Publishes the invocation's metrics when the chain ends, answered or failed. Registered right
 * after the log context, so its onError runs after mapError (middy unwinds onError in reverse)
 * and sees what the error mapping counted.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ChainEvent } from './api-types.ts';
import { publishMetrics } from './metrics.ts';

export function flushMetrics(): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return { after: publishMetrics, onError: publishMetrics };
}
