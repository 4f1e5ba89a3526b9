/**
 * Which tables the CLI works on: the running local stack (found through `$CXM_HOME/local.json`),
 * or with `--stage <name>` the deployed tables `cxm-<stage>-*` with the caller's AWS credentials.
 *
 * Every command module imports this one at start-up, so it stays light: the stores and their SDK
 * clients (DynamoDB; API Gateway for a stage) are imported only when a command connects. Loaded up
 * front they cost each `cxm` process, `--help` included, about 0.3 s of CPU.
 */

import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { localStatePath, readLocalState } from '#infra/local/local-state';
import { SEARCH_ENDPOINT_OUTPUT } from '#infra/stage-names';
import type { UsagePlanKeys } from '#shared/auth/usage-plan-keys';
import { reportingIndexPrefix } from '#shared/store/opensearch-index-names';
import { allTableSpecs, physicalTableName, STAGE_NAME_PATTERN, type TableId } from '#shared/store/table-specs';
import type { TableStores } from '#shared/store/table-stores';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import type { CliEnv } from '../terminal/cli-io.ts';
import type { ReportingSearch } from './wait-until-searchable.ts';

export interface CliStores extends TableStores {
  /** The stage's usage plan; the local stack has none. */
  usagePlan?: UsagePlanKeys;
  /** Where the stores point, for messages. */
  target: string;
  /** The local stack's base URL (from local.json); absent for a stage. */
  apiUrl?: string;
  /**
   * The secret new keys are tagged under: the local stack's (local.json), or the stage's
   * AWSCURRENT version (keys/stage-key-tag-secret.ts), read only when a command issues a key.
   */
  keyTagSecret(): Promise<string>;
  /**
   * Where the target's reporting lists search, when that is OpenSearch (the local engine from
   * local.json; a stage's domain from its stack's `SearchEndpoint`, signed with the caller's
   * credentials); undefined when they read DynamoDB. Looked up only when a command asks.
   */
  reportingSearch(): Promise<ReportingSearch | undefined>;
}

/**
 * Every data store on `tables`, through a DynamoDB client built with `config` that the run owns
 * (destroyed when it ends). Documents keep the history `stage` keeps (its settings in
 * infra/cdk/stage/config.ts), or for the local stack what `env` says, as npm start's functions read it.
 */
async function storesOn(
  cli: CliContext,
  tables: Record<TableId, string>,
  config: DynamoDBClientConfig,
  retentionOf: { stage: string } | { env: CliEnv },
): Promise<TableStores> {
  const [{ DynamoDBClient }, { documentClientOver }, { bindTableStores }, { documentVersionRetention }] =
    await Promise.all([
      import('@aws-sdk/client-dynamodb'),
      import('#shared/store/dynamo-client'),
      import('#shared/store/table-stores'),
      import('#shared/settings/document-settings'),
    ]);
  const settings = 'stage' in retentionOf ? await stageDocumentVersions(retentionOf.stage) : retentionOf.env;
  return bindTableStores(
    documentClientOver(cli.own(new DynamoDBClient(config))),
    tables,
    documentVersionRetention(settings),
  );
}

/** The stage's document history settings; their module loads the CDK library, so only a command on a stage pays for it. */
async function stageDocumentVersions(stage: string): Promise<Record<string, string>> {
  const { documentVersionsEnvironment, stageConfig } = await import('#infra/cdk/stage/config');
  return documentVersionsEnvironment(stageConfig(stage));
}

/**
 * The stores of the local stack (`stage` undefined) or of a deployed stage, with SDK clients the
 * run owns. `env` is what the clients read (the run's, unless a command sets defaults of its own).
 *
 * @example const stores = await connectStores(cli, options.stage);
 */
export async function connectStores(
  cli: CliContext,
  stage: string | undefined,
  env: CliEnv = cli.env,
): Promise<CliStores> {
  if (stage !== undefined) {
    if (!STAGE_NAME_PATTERN.test(stage)) {
      throw new CliError(
        `stage '${stage}' is not a stage name: 1-20 lowercase letters, digits or '-', starting with a letter`,
      );
    }
    const tables = Object.fromEntries(
      allTableSpecs.map((spec) => [spec.id, physicalTableName(stage, spec.id)]),
    ) as Record<TableId, string>;
    const [{ APIGatewayClient }, { apiGatewayUsagePlan }, { awsClientConfig }] = await Promise.all([
      import('@aws-sdk/client-api-gateway'),
      import('./api-gateway-usage-plan.ts'),
      import('./aws-client-config.ts'),
    ]);
    const keyTagSecret = async () => {
      const [{ SecretsManagerClient }, { stageKeyTagSecret }] = await Promise.all([
        import('@aws-sdk/client-secrets-manager'),
        import('./stage-key-tag-secret.ts'),
      ]);
      return stageKeyTagSecret(stage, cli.own(new SecretsManagerClient(awsClientConfig(env, 'Secrets Manager'))));
    };
    const reportingSearch = async (): Promise<ReportingSearch | undefined> => {
      const [{ findStageOutput }, { createOpenSearchClient }] = await Promise.all([
        import('./find-stage-outputs.ts'),
        import('#shared/store/opensearch-client'),
      ]);
      const { value: endpoint } = await findStageOutput(cli, stage, SEARCH_ENDPOINT_OUTPUT);
      if (!endpoint) return undefined;
      const config = awsClientConfig(env, 'OpenSearch');
      const { credentials } = config;
      return {
        client: createOpenSearchClient({
          endpoint,
          region: await config.region(),
          credentials: typeof credentials === 'function' ? credentials : async () => credentials,
        }),
        prefix: reportingIndexPrefix(stage),
      };
    };
    return {
      ...(await storesOn(cli, tables, awsClientConfig(env, 'DynamoDB'), { stage })),
      usagePlan: apiGatewayUsagePlan(stage, cli.own(new APIGatewayClient(awsClientConfig(env, 'API Gateway')))),
      target: `stage ${stage}`,
      keyTagSecret,
      reportingSearch,
    };
  }
  const state = readLocalState(cli.home);
  if (!state) {
    throw new CliError(
      `no local stack found (${localStatePath(cli.home)} is missing). Start one with 'npm start', set CXM_HOME to its state directory, or target a deployed stage with --stage <name>.`,
    );
  }
  if (!state.dynamodbCredentials) {
    throw new CliError(
      `${localStatePath(cli.home)} was written by an older version of the local stack; restart 'npm start' and try again.`,
    );
  }
  const { awsRetryConfig } = await import('./aws-client-config.ts');
  // The installation's own credentials and region: they select DynamoDB Local's database.
  const config = {
    ...awsRetryConfig(env),
    endpoint: state.dynamodbEndpoint,
    region: LOCAL_REGION,
    credentials: state.dynamodbCredentials,
  };
  const { keyTagSecret, opensearch } = state;
  return {
    ...(await storesOn(cli, state.tables, config, { env })),
    apiUrl: state.apiUrl,
    target: `local stack at ${state.apiUrl}`,
    keyTagSecret: async () => {
      if (!keyTagSecret)
        throw new CliError(
          `${localStatePath(cli.home)} was written by a version of the local stack without key tags; restart 'npm start' and try again.`,
        );
      return keyTagSecret;
    },
    reportingSearch: async () => {
      if (!opensearch) return undefined;
      const { createOpenSearchClient } = await import('#shared/store/opensearch-client');
      return {
        client: createOpenSearchClient({
          endpoint: opensearch.endpoint,
          region: state.region,
          credentials: async () => ({ ...opensearch.credentials }),
        }),
        prefix: opensearch.indexPrefix,
      };
    },
  };
}
