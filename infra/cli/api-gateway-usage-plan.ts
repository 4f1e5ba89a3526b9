/**
 * The usage-plan port on a deployed stage (D10): one API Gateway key per tenant key, in the plan
 * the stack named `cxm-<stage>`, with the caller's AWS credentials. The endpoint follows the SDK's
 * standard `AWS_ENDPOINT_URL_API_GATEWAY`, which is also how the tests point it at a fake.
 */
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  NotFoundException,
  paginateGetUsagePlans,
} from '@aws-sdk/client-api-gateway';
import type { UsageKey, UsagePlanKeys } from '#shared/auth/usage-plan-keys';
import { usagePlanName } from '../usage-plan-name.ts';
import { CliError } from './cli-error.ts';

export function apiGatewayUsagePlan(stage: string, client = new APIGatewayClient({})): UsagePlanKeys {
  let planId: Promise<string> | undefined;

  async function findPlanId(): Promise<string> {
    const name = usagePlanName(stage);
    for await (const page of paginateGetUsagePlans({ client }, { limit: 500 })) {
      const plan = page.items?.find((candidate) => candidate.name === name);
      if (plan?.id) return plan.id;
    }
    throw new CliError(`stage ${stage} has no usage plan named '${name}' in this account and region; deploy the stage first (npx cdk deploy -c stage=${stage}) or check AWS_REGION/AWS_PROFILE`);
  }

  return {
    async add(keyId): Promise<UsageKey> {
      // Find the plan before creating anything, so a wrong stage leaves no key behind.
      planId ??= findPlanId();
      const usagePlanId = await planId;
      const created = await client.send(
        new CreateApiKeyCommand({
          name: `cxm-${stage}-${keyId}`,
          description: `Usage-plan key of tenant key ${keyId} (created by cxm keys create)`,
          enabled: true,
          tags: { project: 'cxm-api', stage },
        }),
      );
      if (!created.id || !created.value) throw new Error('API Gateway created a key without an id or value');
      try {
        await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: created.id, keyType: 'API_KEY' }));
      } catch (error) {
        await client.send(new DeleteApiKeyCommand({ apiKey: created.id }));
        throw error;
      }
      return { id: created.id, value: created.value };
    },

    async remove(usageKeyId) {
      try {
        await client.send(new DeleteApiKeyCommand({ apiKey: usageKeyId }));
      } catch (error) {
        if (!(error instanceof NotFoundException)) throw error;
      }
    },
  };
}
