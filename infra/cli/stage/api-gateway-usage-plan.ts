/**
 * The usage-plan port on a deployed stage (rate limits per tenant): one API Gateway key per usage
 * owner, named `cxm-<stage>-tenant-<id>` for a tenant and `cxm-<stage>-key-<keyId>` for a key of
 * several tenants, with its derived value, in the plan the stack named `cxm-<stage>`, with the
 * caller's AWS credentials. Every operation first looks, then creates or deletes only what is
 * missing or extra, so a rerun (or two operators at once) converges instead of duplicating. The
 * endpoint follows the SDK's standard `AWS_ENDPOINT_URL_API_GATEWAY` (aws-client-config.ts), which
 * is also how the tests point it at a fake.
 */
import {
  type APIGatewayClient,
  type ApiKey,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetUsagePlanKeyCommand,
  NotFoundException,
  paginateGetApiKeys,
  paginateGetUsagePlans,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { usagePlanName } from '#infra/stage-names';
import { type UsageOwner, usageKeyName, usageKeyValue } from '#shared/auth/usage-identity';
import type { StageUsageKey, UsageKey, UsagePlanKeys } from '#shared/auth/usage-plan-keys';
import { CliError } from '../terminal/cli-error.ts';

/**
 * The usage-plan port of stage `stage`, through `client` (the run's, which it destroys).
 *
 * @example const usagePlan = apiGatewayUsagePlan('prod', new APIGatewayClient(awsClientConfig(env, 'API Gateway')));
 */
export function apiGatewayUsagePlan(stage: string, client: APIGatewayClient): UsagePlanKeys {
  let planId: Promise<string> | undefined;

  async function findPlanId(): Promise<string> {
    const name = usagePlanName(stage);
    for await (const page of paginateGetUsagePlans({ client }, { limit: 500 })) {
      const plan = page.items?.find((candidate) => candidate.name === name);
      if (plan?.id) return plan.id;
    }
    throw new CliError(
      `stage ${stage} has no usage plan named '${name}' in this account and region; deploy the stage first (npx cdk deploy -c stage=${stage}) or check AWS_REGION/AWS_PROFILE`,
    );
  }

  /**
   * This stage's keys named exactly `name` (nameQuery narrows the listing; the exact match is
   * ours): tagged with this stage, or untagged (made by hand). Another stage's key can bear the
   * same name, since stage and tenant ids may both hold `-tenant-` (stage `eu`'s tenant
   * `x-tenant-y` and stage `eu-tenant-x`'s tenant `y`), and is never ours to replace or delete.
   */
  async function keysNamed(name: string, includeValues: boolean): Promise<ApiKey[]> {
    const found: ApiKey[] = [];
    for await (const page of paginateGetApiKeys({ client }, { nameQuery: name, includeValues, limit: 500 })) {
      found.push(
        ...(page.items ?? []).filter((key) => key.name === name && key.id && (key.tags?.stage ?? stage) === stage),
      );
    }
    return found;
  }

  /** False when the key was already gone (deleted by a concurrent run, or by hand). */
  async function deleteKey(id: string): Promise<boolean> {
    try {
      await client.send(new DeleteApiKeyCommand({ apiKey: id }));
      return true;
    } catch (error) {
      if (error instanceof NotFoundException) return false;
      throw error;
    }
  }

  /** The plan's id, looked up once: a wrong stage fails before anything is created or deleted. */
  function stagePlanId(): Promise<string> {
    planId ??= findPlanId();
    return planId;
  }

  async function inPlan(usagePlanId: string, keyId: string): Promise<boolean> {
    try {
      await client.send(new GetUsagePlanKeyCommand({ usagePlanId, keyId }));
      return true;
    } catch (error) {
      if (error instanceof NotFoundException) return false;
      throw error;
    }
  }

  async function createKey(owner: UsageOwner, name: string, value: string): Promise<ApiKey | undefined> {
    try {
      return await client.send(
        new CreateApiKeyCommand({
          name,
          value,
          description:
            owner.kind === 'tenant'
              ? `Usage-plan identity of tenant ${owner.tenantId}: every key of the tenant alone is throttled through it (cxm keys)`
              : `Usage-plan identity of key ${owner.keyId}, a key of several tenants, throttled through it alone (cxm keys)`,
          enabled: true,
          tags: {
            project: 'cxm-api',
            stage,
            ...(owner.kind === 'tenant' ? { tenant: owner.tenantId } : { key: owner.keyId }),
          },
        }),
      );
    } catch (error) {
      // Values are unique per region: another `cxm keys` created this tenant's key just now.
      if (error instanceof ConflictException) return undefined;
      throw error;
    }
  }

  return {
    stage,
    async ensure(owner): Promise<UsageKey> {
      const usagePlanId = await stagePlanId();
      const name = usageKeyName(stage, owner);
      const value = usageKeyValue(stage, owner);
      let existing = await keysNamed(name, true);
      // A key of that name with another value (made by hand) would never match what the
      // authorizer names: replace it. Values cannot be changed in place.
      for (const stale of existing.filter((key) => key.value !== value)) await deleteKey(stale.id!);
      let key = existing.find((candidate) => candidate.value === value);
      if (!key) {
        key = await createKey(owner, name, value);
        if (!key) {
          existing = await keysNamed(name, true);
          key = existing.find((candidate) => candidate.value === value);
        }
        if (!key?.id) {
          throw new CliError(
            `API Gateway refused the usage key '${name}' as a duplicate value, and no key of that name holds it; delete the API key holding that value and run 'cxm keys sync --stage ${stage}'`,
          );
        }
      }
      if (key.enabled === false) {
        await client.send(
          new UpdateApiKeyCommand({
            apiKey: key.id,
            patchOperations: [{ op: 'replace', path: '/enabled', value: 'true' }],
          }),
        );
      }
      if (!(await inPlan(usagePlanId, key.id!))) {
        try {
          await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
        } catch (error) {
          // Added by a concurrent run in between: what we wanted. Anything else (a full plan) stands.
          if (!(error instanceof ConflictException && (await inPlan(usagePlanId, key.id!)))) throw error;
        }
      }
      return { id: key.id!, value };
    },

    async removeOwner(owner) {
      const deleted: string[] = [];
      for (const key of await keysNamed(usageKeyName(stage, owner), false))
        if (await deleteKey(key.id!)) deleted.push(key.id!);
      return deleted;
    },

    remove: deleteKey,

    async list(): Promise<StageUsageKey[]> {
      // What sync then deletes is judged against this stage: a stage with no plan is refused here.
      await stagePlanId();
      // The whole listing, filtered here: at most 10 000 keys a region, 500 a page. The stage tag
      // (set on every key `cxm keys` made) keeps stage `prod` from taking `prod-eu`'s keys.
      const prefix = `cxm-${stage}-`;
      const keys: StageUsageKey[] = [];
      for await (const page of paginateGetApiKeys({ client }, { limit: 500 })) {
        for (const key of page.items ?? []) {
          if (key.id && key.name?.startsWith(prefix) && key.tags?.stage === stage)
            keys.push({ id: key.id, name: key.name });
        }
      }
      return keys;
    },
  };
}
