/**
 * The stage's webhook settings as the functions read them from their environment (CDK sets them
 * from the stage config; locally npm start passes them), checked at cold start so a bad value fails
 * loudly there.
 */
import {
  DEFAULT_MAX_ENDPOINTS_PER_TENANT,
  MAX_ENDPOINTS_PER_TENANT_LIMIT,
} from '#shared/domain/webhooks/webhook-endpoint';
import type { WebhookTargetRules } from '#shared/domain/webhooks/webhook-target';
import { FUNCTION_ENV } from '#shared/function-env';
import { wholeNumberSetting } from '#shared/whole-number-setting';

/** The settings a developer may change for `npm start` through the variable the function reads. */
export const WEBHOOK_SETTING_ENVS = [FUNCTION_ENV.webhookMaxEndpoints, FUNCTION_ENV.webhookTargets] as const;

/**
 * A tenant's endpoints at most, from `env` (the function's own by default).
 *
 * @example const limit = maxEndpointsPerTenant(); // 20 unless the stage says otherwise
 */
export const maxEndpointsPerTenant = (env: NodeJS.ProcessEnv = process.env) =>
  wholeNumberSetting(
    FUNCTION_ENV.webhookMaxEndpoints,
    DEFAULT_MAX_ENDPOINTS_PER_TENANT,
    1,
    MAX_ENDPOINTS_PER_TENANT_LIMIT,
    env,
  );

/**
 * Which targets are allowed: a deployed stage's unless the local runtime says `local`, so a
 * function missing the setting fails closed.
 *
 * @example checkWebhookTarget(url, webhookTargetRules())
 */
export function webhookTargetRules(): WebhookTargetRules {
  const value = process.env[FUNCTION_ENV.webhookTargets];
  if (value === undefined || value === '' || value === 'stage') return 'stage';
  if (value === 'local') return 'local';
  throw new Error(`${FUNCTION_ENV.webhookTargets}=${value} is not valid; give stage or local.`);
}
