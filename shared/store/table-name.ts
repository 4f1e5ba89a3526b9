import { type TableId, tableSpecs } from './table-specs.ts';

/**
 * The physical name of a table, from the environment CDK (or the local runtime) set for the
 * function. Called at module load, so a misconfigured function fails at cold start, loudly.
 */
export function tableName(id: TableId): string {
  const variable = tableSpecs[id].envVar;
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
  return name === undefined ? undefined : ids.find((id) => process.env[tableSpecs[id].envVar] === name);
}
