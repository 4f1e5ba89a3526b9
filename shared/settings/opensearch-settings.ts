import { FUNCTION_ENV } from './setting-names.ts';
import { wholeNumberSetting } from './whole-number-setting.ts';

export interface OpenSearchSettings {
  /** `https://<domain endpoint>`, or `http://host:port` for a local cluster. */
  endpoint: string;
  /**
   * Names the indexes, e.g. `cxm-<stage>-reporting`: `<prefix>-<kind>-<year>` (opensearch-index-names.ts).
   */
  indexPrefix: string;
}

/** The shards of each new year index (the stage's `search.indexShards`, infra/cdk/stage/config.ts). */
export interface IndexShards {
  primaries: number;
  replicas: number;
}

/**
 * OpenSearch's own defaults, for a function started without the variables (CDK always sets them
 * on the indexer). Amazon OpenSearch Service would otherwise give an index 5 primaries, which
 * for a year of a kind's rows is too many small shards (see the sizing rule in infra/README.md).
 */
export const DEFAULT_INDEX_SHARDS: IndexShards = { primaries: 1, replicas: 1 };

/**
 * Whether the reporting lists search OpenSearch (`opensearch`) rather than the reporting table's
 * window index: a stage with a domain, or npm start beside its local engine. The lists' bundles
 * have it compiled in (shared/store/function-stores.ts); the local runtime asks here.
 *
 * @example if (searchesOpenSearch()) readers.push(runtime.indexer);
 */
export function searchesOpenSearch(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[FUNCTION_ENV.reportingBackend] === 'opensearch';
}

/**
 * Where a function finds the reporting search cluster: set by CDK on the indexer and on the list
 * functions of stages that use OpenSearch. Read at cold start, so a misconfigured function fails
 * loudly there instead of answering 503 to every request.
 */
export function opensearchSettings(env: NodeJS.ProcessEnv = process.env): OpenSearchSettings {
  const read = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`environment variable ${name} is not set`);
    return value;
  };
  return { endpoint: read(FUNCTION_ENV.opensearchEndpoint), indexPrefix: read(FUNCTION_ENV.opensearchIndexPrefix) };
}

/** Only the indexer needs these: it puts them into the index templates. */
export function opensearchIndexShards(env: NodeJS.ProcessEnv = process.env): IndexShards {
  return {
    primaries: wholeNumberSetting(FUNCTION_ENV.opensearchPrimaryShards, DEFAULT_INDEX_SHARDS.primaries, 1, 9999, env),
    replicas: wholeNumberSetting(FUNCTION_ENV.opensearchReplicas, DEFAULT_INDEX_SHARDS.replicas, 0, 9999, env),
  };
}
