/**
 * `cxm preflight`'s CloudWatch Logs check: room for the stage's resource policy. An account holds
 * at most 10 Logs resource policies per region, a quota AWS does not raise, and an OpenSearch stage
 * adds one for its domain's logs (infra/stage-names.ts): when the 10 are taken, its
 * deploy fails creating the domain. A stage deployed before already has its policy, which counts
 * once.
 */
import { type CloudWatchLogsClient, DescribeResourcePoliciesCommand } from '@aws-sdk/client-cloudwatch-logs';
import type { StageConfig } from '#infra/cdk/stage/config';
import { searchLogPolicyName } from '#infra/search-log-policy-name';
import { checkRow, notChecked, type PreflightCheck } from './preflight-finding.ts';

const CHECK = { id: 'logs-resource-policies', name: 'CloudWatch Logs resource policies' };

/** Logs resource policies per account and region (account-scoped ones, as CDK makes): not raisable. */
const LOGS_RESOURCE_POLICIES_QUOTA = 10;

/** The names of the account's resource policies in the client's region, every page of them. */
async function resourcePolicyNames(logs: CloudWatchLogsClient): Promise<string[]> {
  const names: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await logs.send(new DescribeResourcePoliciesCommand({ limit: 50, ...(nextToken && { nextToken }) }));
    names.push(...(page.resourcePolicies ?? []).map((policy) => policy.policyName ?? ''));
    nextToken = page.nextToken;
  } while (nextToken);
  return names;
}

/**
 * Ok while the policies already there plus the stage's new one fit in the 10; blocked when not.
 *
 * @example await checkLogsResourcePolicies(new CloudWatchLogsClient({}), stageConfig('dev'), 'eu-west-1') // { id: 'logs-resource-policies', figures: { used: 3, quota: 10, stageAdds: 1, after: 4 }, ... }
 */
export async function checkLogsResourcePolicies(
  logs: CloudWatchLogsClient,
  config: StageConfig,
  region: string,
): Promise<PreflightCheck> {
  let names: string[];
  try {
    names = await resourcePolicyNames(logs);
  } catch (error) {
    return notChecked(CHECK, { operation: 'DescribeResourcePolicies', action: 'logs:DescribeResourcePolicies' }, error);
  }
  const used = names.length;
  const own = config.reportingBackend === 'opensearch' ? searchLogPolicyName(config.stage) : undefined;
  const stageAdds = own !== undefined && !names.includes(own) ? 1 : 0;
  const after = used + stageAdds;
  const figures = { used, quota: LOGS_RESOURCE_POLICIES_QUOTA, stageAdds, after };
  const ofQuota = `${used} of ${LOGS_RESOURCE_POLICIES_QUOTA} used in ${region}`;
  const found =
    own === undefined
      ? `${ofQuota}; the stage adds none (its reporting reads DynamoDB: no search domain)`
      : stageAdds === 0
        ? `${ofQuota}, the stage's own ${own} (its search domain's logs) among them`
        : `${ofQuota}; the stage adds ${own} for its search domain's logs, making ${after}`;
  if (after <= LOGS_RESOURCE_POLICIES_QUOTA) return checkRow(CHECK, 'ok', found, { figures });
  return checkRow(CHECK, 'blocked', found, {
    fix:
      `the ${LOGS_RESOURCE_POLICIES_QUOTA} cannot be raised: delete a policy nothing uses any more (the commands below list them and delete one by name), ` +
      `or let stage ${config.stage} read reporting from DynamoDB (reportingBackend 'dynamodb' in infra/cdk/stage/config.ts), which needs none`,
    commands: [
      `aws logs describe-resource-policies --region ${region} --query 'resourcePolicies[].policyName'`,
      `aws logs delete-resource-policy --region ${region} --policy-name <name>`,
    ],
    figures,
  });
}
