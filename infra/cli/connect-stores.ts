/**
 * Which tables the CLI works on: the running local stack (found through `$CXM_HOME/local.json`),
 * or with `--stage <name>` the deployed tables `cxm-<stage>-*` with the caller's AWS credentials.
 *
 * Every command module imports this one at start-up, so it stays light: the stores and their SDK
 * clients (DynamoDB; API Gateway for a stage) are imported only when a command connects. Loaded up
 * front they cost each `cxm` process, `--help` included, about 0.3 s of CPU.
 */

import { localStatePath, readLocalState } from '#infra/local/local-state';
import type { UsagePlanKeys } from '#shared/auth/usage-plan-keys';
import { allTableSpecs, physicalTableName, STAGE_NAME_PATTERN, type TableId } from '#shared/store/table-specs';
import { CliError } from './cli-error.ts';
import type { TableStores } from './open-table-stores.ts';

export interface CliStores extends TableStores {
  /** The stage's usage plan; the local stack has none. */
  usagePlan?: UsagePlanKeys;
  /** Where the stores point, for messages. */
  target: string;
  /** The local stack's base URL (from local.json); absent for a stage. */
  apiUrl?: string;
  /**
   * The secret new keys are tagged under: the local stack's (local.json), or the stage's
   * AWSCURRENT version (stage-key-tag-secret.ts), read only when a command issues a key.
   */
  keyTagSecret(): Promise<string>;
}

export async function connectStores(stage: string | undefined): Promise<CliStores> {
  if (stage !== undefined) {
    if (!STAGE_NAME_PATTERN.test(stage)) {
      throw new CliError(`stage '${stage}' is not a stage name: 1-20 lowercase letters, digits or '-', starting with a letter`);
    }
    const tables = Object.fromEntries(allTableSpecs.map((spec) => [spec.id, physicalTableName(stage, spec.id)])) as Record<TableId, string>;
    const [{ apiGatewayUsagePlan }, { openTableStores }] = await Promise.all([import('./api-gateway-usage-plan.ts'), import('./open-table-stores.ts')]);
    const keyTagSecret = async () => (await import('./stage-key-tag-secret.ts')).stageKeyTagSecret(stage);
    return { ...openTableStores(tables), usagePlan: apiGatewayUsagePlan(stage), target: `stage ${stage}`, keyTagSecret };
  }
  const state = readLocalState();
  if (!state) {
    throw new CliError(`no local stack found (${localStatePath()} is missing). Start one with 'npm start', set CXM_HOME to its state directory, or target a deployed stage with --stage <name>.`);
  }
  const [{ useLocalDynamo }, { openTableStores }] = await Promise.all([import('#infra/local/use-local-dynamo'), import('./open-table-stores.ts')]);
  // Before the document client exists: it reads the endpoint and credentials from the environment.
  if (!state.dynamodbCredentials) {
    throw new CliError(`${localStatePath()} was written by an older version of the local stack; restart 'npm start' and try again.`);
  }
  useLocalDynamo({ endpoint: state.dynamodbEndpoint, credentials: state.dynamodbCredentials }, state.tables);
  const { keyTagSecret } = state;
  return {
    ...openTableStores(state.tables),
    apiUrl: state.apiUrl,
    target: `local stack at ${state.apiUrl}`,
    keyTagSecret: async () => {
      if (!keyTagSecret) throw new CliError(`${localStatePath()} was written by a version of the local stack without key tags; restart 'npm start' and try again.`);
      return keyTagSecret;
    },
  };
}
