/**
 * API Gateway access logs: one JSON line per request in a log group with the stage's retention,
 * the gateway-made answers (401, 429, 413...) included, which no function log sees. The caller is
 * named by key id only (the authorizer's context); tenants and the key itself never appear.
 */

import { AccessLogFormat, LogGroupLogDestination, type StageOptions } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { StageConfig } from '../stage/config.ts';

const ACCESS_LOG_GROUP_ID = 'AccessLogs';

/**
 * Field -> API Gateway variable. `stage` is there for the Throttled429 metric filter's dimension
 * (one metric namespace serves every stage of an account). Values are written as JSON strings,
 * except `$context.error.messageString`, which API Gateway quotes and escapes itself.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  stage: '$context.stage',
  ip: '$context.identity.sourceIp',
  keyId: '$context.authorizer.keyId',
  method: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  path: '$context.path',
  status: '$context.status',
  responseLength: '$context.responseLength',
  requestTime: '$context.requestTime',
  integrationLatency: '$context.integrationLatency',
  responseLatency: '$context.responseLatency',
  errorMessage: '$context.error.messageString',
  errorType: '$context.error.responseType',
  authorizerError: '$context.authorizer.error',
} as const;

const SELF_QUOTED = new Set<string>(['$context.error.messageString']);

export function accessLogFormat(): string {
  const members = Object.entries(ACCESS_LOG_FIELDS).map(
    ([field, variable]) => `"${field}":${SELF_QUOTED.has(variable) ? variable : `"${variable}"`}`,
  );
  return `{${members.join(',')}}`;
}

/** The stage's access log settings; the log group is created under `scope` (the Api). */
export function accessLogOptions(
  scope: Construct,
  config: StageConfig,
): Pick<StageOptions, 'accessLogDestination' | 'accessLogFormat'> {
  const group = new LogGroup(scope, ACCESS_LOG_GROUP_ID, {
    logGroupName: `/aws/apigateway/cxm-${config.stage}/access`,
    retention: config.logRetention,
    removalPolicy: config.removalPolicy,
  });
  return {
    accessLogDestination: new LogGroupLogDestination(group),
    accessLogFormat: AccessLogFormat.custom(accessLogFormat()),
  };
}

/** The access log group accessLogOptions created under `scope`, for metric filters. */
export function accessLogGroupOf(scope: Construct): LogGroup {
  const group = scope.node.tryFindChild(ACCESS_LOG_GROUP_ID);
  if (!(group instanceof LogGroup))
    throw new Error(`${scope.node.path} has no access log group: call accessLogOptions in its stage options`);
  return group;
}
