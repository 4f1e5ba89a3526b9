/**
 * The stage's webhook settings as the functions read them from their environment (CDK sets them
 * from the stage config; locally npm start passes them), checked at cold start so a bad value fails
 * loudly there.
 */

import { RETRY_SCHEDULE_MS } from '#shared/domain/webhooks/retry-schedule';
import {
  DEFAULT_MAX_ENDPOINTS_PER_TENANT,
  MAX_ENDPOINTS_PER_TENANT_LIMIT,
} from '#shared/domain/webhooks/webhook-endpoint';
import type { WebhookTargetRules } from '#shared/domain/webhooks/webhook-target';
import { parseWholeNumber } from './parse-whole-number.ts';
import { FUNCTION_ENV } from './setting-names.ts';
import { wholeNumberSetting } from './whole-number-setting.ts';

/** The settings a developer may change for `npm start` through the variable the function reads. */
export const WEBHOOK_SETTING_ENVS = [
  FUNCTION_ENV.webhookMaxEndpoints,
  FUNCTION_ENV.webhookTargets,
  FUNCTION_ENV.webhookRetrySchedule,
] as const;

/** A schedule of at most this many attempts, none waiting longer than a day. */
const MAX_SCHEDULE_STEPS = 16;
const MAX_STEP_MS = 24 * 60 * 60 * 1000;

/**
 * The waits before each attempt: the stage's (retry-schedule.ts) unless a local stage gives its own,
 * comma-separated milliseconds (`0,1000,2000`), to see retries in seconds.
 *
 * @example deliverMessage({ ...deps, schedule: webhookRetrySchedule() }, tenantId, key)
 */
export function webhookRetrySchedule(env: NodeJS.ProcessEnv = process.env): readonly number[] {
  const name = FUNCTION_ENV.webhookRetrySchedule;
  const raw = env[name];
  if (raw === undefined || raw === '') return RETRY_SCHEDULE_MS;
  const steps = raw.split(',').map((step) => parseWholeNumber(step.trim(), 0, MAX_STEP_MS));
  if (steps.length > MAX_SCHEDULE_STEPS || steps.some((step) => step === undefined))
    throw new Error(
      `${name}=${raw} is not valid; give up to ${MAX_SCHEDULE_STEPS} waits in milliseconds, comma-separated (0,1000,2000), each at most ${MAX_STEP_MS}.`,
    );
  return steps as number[];
}

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
 * The hosts the API answers on, which no webhook may target (`CXM_API_HOSTS`, comma-separated).
 *
 * @example checkWebhookTarget(url, webhookTargetRules(), { ownHosts: webhookOwnHosts() })
 */
export function webhookOwnHosts(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[FUNCTION_ENV.apiHosts] ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase().replace(/\.$/, ''))
    .filter((host) => host !== '');
}

/**
 * The queue of webhook delivery tasks, as CDK or the local runtime names it to the function.
 *
 * @example createSqsDeliveryQueue(new SQSClient({}), webhookQueueUrl())
 */
export function webhookQueueUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env[FUNCTION_ENV.webhookQueueUrl];
  if (!url)
    throw new Error(`environment variable ${FUNCTION_ENV.webhookQueueUrl} (the webhook delivery queue) is not set`);
  return url;
}

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
