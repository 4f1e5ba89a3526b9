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
