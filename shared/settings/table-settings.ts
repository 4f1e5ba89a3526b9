import { FUNCTION_ENV } from './setting-names.ts';

/** A table, by the id its spec has (shared/store/table-specs.ts); its variable is named here. */
type TableId = keyof typeof FUNCTION_ENV.tables;

/**
 * The physical name of a table, from the environment CDK (or the local runtime) set for the
 * function. Called at module load, so a misconfigured function fails at cold start, loudly.
 */
export function tableName(id: TableId): string {
  const variable = FUNCTION_ENV.tables[id];
  const name = process.env[variable];
  if (!name) throw new Error(`environment variable ${variable} (name of the ${id} table) is not set`);
  return name;
}

/**
 * The table a stream record comes from, by its `eventSourceARN` (`…:table/<name>/stream/…`), among
 * `ids`, the tables the function reads streams of; undefined for another.
 *
 * @example const table = tableOfStreamRecord(record.eventSourceARN, ['conversations', 'vocJobs']);
 */
export function tableOfStreamRecord(eventSourceArn: string | undefined, ids: readonly TableId[]): TableId | undefined {
  const name = eventSourceArn?.match(/:table\/([^/]+)\/stream\//)?.[1];
  return name === undefined ? undefined : ids.find((id) => process.env[FUNCTION_ENV.tables[id]] === name);
}
