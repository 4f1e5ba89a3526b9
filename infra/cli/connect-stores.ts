/**
 * Which tables the CLI works on: the running local stack (found through `$CXM_HOME/local.json`),
 * or with `--stage <name>` the deployed tables `cxm-<stage>-*` with the caller's AWS credentials.
 */
import { createConversationsStore, type ConversationsStore } from '#shared/store/conversations-store';
import { createDocumentsStore, type DocumentsStore } from '#shared/store/documents-store';
import { documentClient } from '#shared/store/dynamo-client';
import { createKeysStore, type KeysStore } from '#shared/store/keys-store';
import { createReportingRowsStore, type ReportingRowsStore } from '#shared/store/reporting-rows-store';
import { createVocJobsStore, type VocJobsStore } from '#shared/store/voc-jobs-store';
import { allTableSpecs, physicalTableName, STAGE_NAME_PATTERN, type TableId } from '#shared/store/table-specs';
import { localStatePath, readLocalState } from '#infra/local/local-state';
import { useLocalDynamo } from '#infra/local/use-local-dynamo';
import type { UsagePlanKeys } from '#shared/auth/usage-plan-keys';
import { apiGatewayUsagePlan } from './api-gateway-usage-plan.ts';
import { CliError } from './cli-error.ts';

export interface CliStores {
  keys: KeysStore;
  conversations: ConversationsStore;
  documents: DocumentsStore;
  vocJobs: VocJobsStore;
  reportingRows: ReportingRowsStore;
  /** The stage's usage plan (D10); the local stack has none. */
  usagePlan?: UsagePlanKeys;
  /** Where the stores point, for messages. */
  target: string;
}

export function connectStores(stage: string | undefined): CliStores {
  let tables: Record<TableId, string>;
  let target: string;
  let usagePlan: UsagePlanKeys | undefined;
  if (stage !== undefined) {
    if (!STAGE_NAME_PATTERN.test(stage)) {
      throw new CliError(`stage '${stage}' is not a stage name: 1-20 lowercase letters, digits or '-', starting with a letter`);
    }
    tables = Object.fromEntries(allTableSpecs.map((spec) => [spec.id, physicalTableName(stage, spec.id)])) as Record<TableId, string>;
    target = `stage ${stage}`;
    usagePlan = apiGatewayUsagePlan(stage);
  } else {
    const state = readLocalState();
    if (!state) {
      throw new CliError(
        `no local stack found (${localStatePath()} is missing). Start one with 'npm start', set CXM_HOME to its state directory, or target a deployed stage with --stage <name>.`,
      );
    }
    useLocalDynamo(state.dynamodbEndpoint, state.tables);
    tables = state.tables;
    target = `local stack at ${state.apiUrl}`;
  }
  const client = documentClient();
  return {
    keys: createKeysStore(client, tables.keys),
    conversations: createConversationsStore(client, tables.conversations),
    documents: createDocumentsStore(client, tables.documents),
    vocJobs: createVocJobsStore(client, tables.vocJobs),
    reportingRows: createReportingRowsStore(client, tables.reporting),
    ...(usagePlan && { usagePlan }),
    target,
  };
}
