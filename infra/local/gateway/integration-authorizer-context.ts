/**
 * What API Gateway makes of a Lambda authorizer's result before the integration sees it: the
 * `context` values may only be strings, numbers or booleans (anything else is the authorizer's
 * misconfiguration, answered 500 by the gateway), and they reach the function as strings, beside
 * `principalId` and `integrationLatency`.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';

export class AuthorizerConfigurationError extends Error {}

export function integrationAuthorizerContext(
  result: APIGatewayAuthorizerResult,
  integrationLatency: number,
): Record<string, string | number> {
  if (typeof result.principalId !== 'string' || !result.policyDocument) {
    throw new AuthorizerConfigurationError('the authorizer result has no principalId or policyDocument');
  }
  const context: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(result.context ?? {})) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new AuthorizerConfigurationError(
        `authorizer context value ${name} is ${value === null ? 'null' : typeof value}; only strings, numbers and booleans are allowed`,
      );
    }
    context[name] = String(value);
  }
  return { ...context, principalId: result.principalId, integrationLatency };
}
