/**
 * `cxm preflight`'s API Gateway checks, both account-wide settings of the region that no stack
 * owns: the CloudWatch Logs role the stage's access logs need (without it the deploy fails at the
 * stage), and the API keys left under the region's 10 000, which cannot be raised and bound the
 * tenants of every stage in the region (infra/README.md, "Growing past one region").
 */
import { type APIGatewayClient, GetAccountCommand, paginateGetApiKeys } from '@aws-sdk/client-api-gateway';
import { type AwsCall, checkRow, notChecked, type PreflightCheck } from './preflight-finding.ts';

const ROLE_CHECK = { id: 'api-gateway-cloudwatch-role', name: 'API Gateway CloudWatch role' };
const KEYS_CHECK = { id: 'api-keys', name: 'API Gateway API keys' };

/** API Gateway API keys per account and region: AWS's quota, not raisable. */
const API_KEYS_QUOTA = 10_000;
/** Fewer keys left than this is a warning: a batch of new tenants could use them up. */
const API_KEYS_LOW = 100;

/** API Gateway's IAM action is the HTTP method on the resource's path. */
const apiGatewayCall = (operation: string, region: string, path: string): AwsCall => ({
  operation,
  action: `apigateway:GET on arn:aws:apigateway:${region}::${path}`,
});

/**
 * The commands that give API Gateway its CloudWatch Logs role in a region, as infra/README.md
 * ("Prerequisites") shows them, which test/integration/cli-preflight.test.ts holds to these: the
 * role is the account's (IAM is global), the setting the region's.
 */
function cloudWatchRoleCommands(region: string): string[] {
  return [
    `aws iam create-role --role-name apigateway-cloudwatch-logs --assume-role-policy-document '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"apigateway.amazonaws.com"},"Action":"sts:AssumeRole"}]}'`,
    'aws iam attach-role-policy --role-name apigateway-cloudwatch-logs --policy-arn arn:aws:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
    `aws apigateway update-account --region ${region} --patch-operations "op=replace,path=/cloudwatchRoleArn,value=arn:aws:iam::$(aws sts get-caller-identity --query Account --output text):role/apigateway-cloudwatch-logs"`,
  ];
}

/**
 * Ok when API Gateway has a CloudWatch Logs role in the region; blocked, with the commands, when not.
 *
 * @example await checkCloudWatchRole(new APIGatewayClient({}), 'eu-west-1') // { id: 'api-gateway-cloudwatch-role', finding: 'ok', ... }
 */
export async function checkCloudWatchRole(apiGateway: APIGatewayClient, region: string): Promise<PreflightCheck> {
  let roleArn: string | undefined;
  try {
    roleArn = (await apiGateway.send(new GetAccountCommand({}))).cloudwatchRoleArn;
  } catch (error) {
    return notChecked(ROLE_CHECK, apiGatewayCall('GetAccount', region, '/account'), error);
  }
  if (roleArn) return checkRow(ROLE_CHECK, 'ok', `cloudwatchRoleArn ${roleArn}`);
  return checkRow(
    ROLE_CHECK,
    'blocked',
    `API Gateway has no CloudWatch Logs role in ${region}: the stage's access logs make the deploy fail`,
    {
      fix: 'create the role and give it to API Gateway (infra/README.md, "Prerequisites"; where the role exists already, in another region, only the last command is needed):',
      commands: cloudWatchRoleCommands(region),
    },
  );
}

/**
 * The region's API keys, used and left: ok, warn under API_KEYS_LOW left, blocked at none.
 *
 * @example await checkApiKeys(new APIGatewayClient({}), 'eu-west-1', 'dev') // { id: 'api-keys', figures: { used: 12, quota: 10000, left: 9988 }, ... }
 */
export async function checkApiKeys(
  apiGateway: APIGatewayClient,
  region: string,
  stage: string,
): Promise<PreflightCheck> {
  let used = 0;
  try {
    for await (const page of paginateGetApiKeys({ client: apiGateway }, { limit: 500 }))
      used += page.items?.length ?? 0;
  } catch (error) {
    return notChecked(KEYS_CHECK, apiGatewayCall('GetApiKeys', region, '/apikeys'), error);
  }
  const left = Math.max(API_KEYS_QUOTA - used, 0);
  const figures = { used, quota: API_KEYS_QUOTA, left };
  const found = `${used} of ${API_KEYS_QUOTA} used in ${region}, ${left} left (one per tenant with a key, across every stage of the region)`;
  if (left >= API_KEYS_LOW) return checkRow(KEYS_CHECK, 'ok', found, { figures });
  const fix =
    `the ${API_KEYS_QUOTA} cannot be raised: delete keys no longer needed ('cxm keys sync --stage ${stage}' deletes those of revoked and expired keys), ` +
    'or put new tenants in a stage of another region or account (infra/README.md, "Growing past one region")';
  return checkRow(KEYS_CHECK, left === 0 ? 'blocked' : 'warn', found, { fix, figures });
}
