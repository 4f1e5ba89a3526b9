/**
 * The names the CDK app gives a stage's resources, and by which the operator CLI and the local
 * runtime find them again: each side reads them here, so the two agree. Free of aws-cdk-lib, so
 * the CLI can name a resource without loading it.
 */
import type { SecretId } from '#shared/api/route-spec';

/** The stage of the local stack: its API Gateway stage, its tables `cxm-local-*`, its synthesized stack. */
export const LOCAL_STAGE = 'local';

/**
 * A stage's CloudFormation stack; `cxm smoke --stage` finds the stage's base URL in its outputs.
 *
 * @example stackName('dev') // 'cxm-dev'
 */
export function stackName(stage: string): string {
  return `cxm-${stage}`;
}

/** The stack output holding the stage's base URL (`https://<api>.execute-api.<region>.amazonaws.com/<stage>/`). */
export const API_URL_OUTPUT = 'ApiUrl';

/**
 * The stack output holding the URL of the stage's search domain (`https://<domain endpoint>`),
 * on a stage that serves reporting from OpenSearch: where `cxm import` and `cxm seed` see their
 * rows become searchable.
 */
export const SEARCH_ENDPOINT_OUTPUT = 'SearchEndpoint';

/**
 * The stage's usage plan, which `cxm keys create --stage` finds by name to attach each tenant's
 * API Gateway key.
 *
 * @example usagePlanName('dev') // 'cxm-dev'
 */
export function usagePlanName(stage: string): string {
  return `cxm-${stage}`;
}

/**
 * A function's name on a stage: `cxm-<stage>-<id>`, the id being a route's or another function's
 * (the authorizer, the indexer, the webhook functions). CDK names them so; the local runtime names
 * its Lambda context and log lines alike.
 *
 * @example functionName('dev', 'addInternalNote') // 'cxm-dev-addInternalNote'
 */
export function functionName(stage: string, id: string): string {
  return `cxm-${stage}-${id}`;
}

/**
 * The Secrets Manager name of a stage's secret; bundle mode (infra/local) recognises it by this
 * name to serve its local value.
 *
 * @example secretName('dev', 'cursorSecret') // 'cxm-dev-cursor-secret'
 */
export function secretName(stage: string, id: SecretId): string {
  return `cxm-${stage}-${id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * The REQUEST authorizer's identity sources, which are also its cache key: the Authorization header
 * alone, so one authorizer call per key and TTL serves every path (a backend adding notes to a
 * thousand conversations makes one, not a thousand). The authorizer's answer depends on the key
 * only (functions/authorizer.ts). The stack declares them; bundle mode refuses a template with
 * others, since the local gateway's cache (per key) emulates exactly these.
 */
export const AUTHORIZER_IDENTITY_SOURCES = ['method.request.header.Authorization'] as const;

/** The id of the stage's ReportingSearch in its stack (cdk/stack.ts). */
export const SEARCH_CONSTRUCT_ID = 'Search';
/** The id of the OpenSearch Domain in ReportingSearch (cdk/constructs/search.ts). */
export const SEARCH_DOMAIN_ID = 'Domain';

/**
 * The type of the custom resource that answers the public key of a stage's webhook secret key
 * (infra/cdk/constructs/webhook-sealing-key.ts); the local runtime stands in for its `PublicKey`.
 */
export const SEALING_KEY_RESOURCE_TYPE = 'Custom::WebhookSealingKey';
